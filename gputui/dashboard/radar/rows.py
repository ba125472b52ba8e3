"""The radar's rows as text (the Idle view, `gputui idle`) and as JSON data; every string from data sanitised."""

from __future__ import annotations

import time
from typing import Any

from gputui.core.idle import IdleRow
from gputui.core.plain_text import sanitise

#: The columns of the Idle view and of `gputui idle`: key, title.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("node", "Node"),
    ("unit", "GPU"),
    ("job", "Job"),
    ("user", "User"),
    ("since", "Held since"),
    ("idle", "Idle for"),
    ("memory", "Memory"),
    ("util", "Util seen"),
)


def duration_text(seconds: float | None) -> str:
    """'45s', '12m', '2h05m', '3d04h'."""
    if seconds is None:
        return "-"
    s = int(max(0.0, seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def since_text(t: float, now: float) -> str:
    """A time of day (UTC) when ``t`` is on the same day as ``now``, else the date and time."""
    same_day = time.gmtime(t)[:3] == time.gmtime(now)[:3]
    return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M", time.gmtime(t))


def memory_text(mib: int | None) -> str:
    if mib is None:
        return "N/A"
    return f"{mib / 1024:.1f} GiB" if mib >= 1024 else f"{mib} MiB"


def job_text(row: IdleRow) -> str:
    h = row.holder
    if h.job_id is None:
        return "(processes)"
    return sanitise(h.job_id) + (f" {sanitise(h.name)}" if h.name else "")


def util_text(row: IdleRow) -> str:
    """What the radar saw: the highest reading of the quiet run ('max 2 %'), marked '≤' where the GPU's figure
    bounds a part of it; for an unknown row, why there is no reading."""
    if row.state == "idle":
        bound = "≤" if row.basis == "gpu-bound" else ""
        return f"max {bound}{row.util_max} %"
    if row.gpu_util is not None:
        return f"GPU {row.gpu_util} %, own N/A"
    return "N/A"


def row_texts(row: IdleRow, now: float) -> dict[str, str]:
    """The row's cells by column key."""
    return {
        "node": sanitise(row.node),
        "unit": sanitise(row.unit),
        "job": job_text(row),
        "user": sanitise(row.holder.user) if row.holder.user else "N/A",
        "since": since_text(row.held_since, now),
        "idle": duration_text(row.idle_for_s) if row.state == "idle" else "unknown",
        "memory": memory_text(row.memory_mib),
        "util": util_text(row),
    }


def row_data(row: IdleRow) -> dict[str, Any]:
    """The row as JSON data (N/A is null); times in epoch seconds, durations in seconds."""
    h = row.holder
    return {
        "node": row.node,
        "gpu": row.key.gpu,
        "unit": row.key.kind,
        "unit_ref": row.key.ref or None,
        "job": h.job_id,
        "job_name": h.name,
        "user": h.user,
        "held_by": h.origin,
        "state": row.state,
        "held_since": row.held_since,
        "idle_for_s": row.idle_for_s,
        "memory_mib": row.memory_mib,
        "util_now": row.util_now,
        "util_max": row.util_max,
        "gpu_util": row.gpu_util,
        "util_basis": row.basis,
    }
