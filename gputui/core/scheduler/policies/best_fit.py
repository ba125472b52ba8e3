"""Best-fit packing (the default): fullest nodes and GPUs first, so whole nodes and GPUs stay free for big jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.base import NodeView
    from gputui.core.scheduler.state import GpuUnit


def whole_key(mps_on: bool, index: int) -> tuple:
    """Plain GPUs before MPS-ready ones (keep those for MPS jobs), then the lowest index."""
    return (not mps_on, -index)


def mig_key(used_before: int, open_before: tuple[int, int], open_after: tuple[int, int], lean: int = 0) -> tuple:
    """The GPU with the most slots already taken, then the slot that keeps the most placements open, then the slot
    at its profile's end of the GPU (measured: leaning first costs best-fit 3 points on one node)."""
    return (used_before.bit_count(), open_after[1], open_after[0], lean)


def mps_key(percent_sum: int, clients: int, index: int) -> tuple:
    """The GPU already carrying the largest MPS share, so that other MPS GPUs stay empty."""
    return (percent_sum, clients, -index)


class BestFit:
    name = "best-fit"
    ascending = True
    candidates = 1

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        return (-free_whole_after,)

    def whole_key(self, g: GpuUnit) -> tuple:
        return whole_key(g.mps_on, g.index)

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        return mig_key(used_before, open_before, open_after, lean)

    def mps_key(self, g: GpuUnit) -> tuple:
        return mps_key(g.mps_pct, g.mps_clients, g.index)
