"""The allocated-but-idle radar: which held GPU units (whole GPUs, MIG instances, MPS shares) stayed under a
utilisation threshold for a window. Pure: it reads snapshots and holdings, and keeps a few numbers per unit."""

from __future__ import annotations

from gputui.core.idle.holdings import (
    HeldJob,
    Holder,
    Holdings,
    RecordedJobs,
    UnitKey,
    holdings_from_jobs,
    merge_holdings,
    process_holdings,
)
from gputui.core.idle.radar import DEFAULT_THRESHOLD, DEFAULT_WINDOW_S, IdleRadar, IdleRow, RadarResult

__all__ = [
    "DEFAULT_THRESHOLD",
    "DEFAULT_WINDOW_S",
    "HeldJob",
    "Holder",
    "Holdings",
    "IdleRadar",
    "IdleRow",
    "RadarResult",
    "RecordedJobs",
    "UnitKey",
    "holdings_from_jobs",
    "merge_holdings",
    "process_holdings",
]
