"""Spread: emptiest nodes and GPUs first, to even out load (and heat) across the cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.base import NodeView
    from gputui.core.scheduler.state import GpuUnit


def mig_key(used_before: int, open_before: tuple[int, int], open_after: tuple[int, int], lean: int = 0) -> tuple:
    """The GPU with the fewest slots taken, then the slot at its profile's end, then the most placements open."""
    return (-used_before.bit_count(), lean, open_after[1], open_after[0])


def mps_key(percent_sum: int, clients: int, index: int) -> tuple:
    """The GPU with the smallest MPS share so far."""
    return (-percent_sum, -clients, -index)


class Spread:
    name = "spread"
    ascending = False
    candidates = 1

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        return (free_whole_after,)

    def whole_key(self, g: GpuUnit) -> tuple:
        return (-g.index,)

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        return mig_key(used_before, open_before, open_after, lean)

    def mps_key(self, g: GpuUnit) -> tuple:
        return mps_key(g.mps_pct, g.mps_clients, g.index)
