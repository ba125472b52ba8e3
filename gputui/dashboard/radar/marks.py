"""The overview's idle marks: per GPU row key, a short text for the GPUs where the radar flags a unit."""

from __future__ import annotations

from gputui.core.idle import RadarResult
from gputui.dashboard.gpu_index import gpu_key
from gputui.dashboard.radar.rows import duration_text


def idle_marks(result: RadarResult) -> dict[str, str]:
    """'node/index' -> 'idle 14m' (the longest idle unit of the GPU), or 'idle 2×' where several units are."""
    longest: dict[str, float] = {}
    count: dict[str, int] = {}
    for node, index, idle_for in result.idle_spans():
        key = gpu_key(node, index)
        longest[key] = max(longest.get(key, 0.0), idle_for)
        count[key] = count.get(key, 0) + 1
    return {k: f"idle {count[k]}×" if count[k] > 1 else f"idle {duration_text(v)}" for k, v in longest.items()}
