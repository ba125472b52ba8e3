"""One frame to export: the snapshot, who holds what in it, and the queue's clock."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.model import ClusterSnapshot
from gputui.export.attribution import Attribution


@dataclass(frozen=True, slots=True)
class Frame:
    snapshot: ClusterSnapshot
    attribution: Attribution
    now: float  # the queue's clock, for queue waits (the snapshot's time for a replay)
