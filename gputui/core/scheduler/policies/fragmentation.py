"""Fragmentation-aware: among the tightest feasible nodes, keep the largest MIG profiles and most whole GPUs placeable.

Like the FGD idea, a placement is scored by what it leaves: the largest profile still creatable on the node's MIG
GPUs, then the number of open (profile, slot) placements, then the whole GPUs left free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.base import NodeView
    from gputui.core.scheduler.state import GpuUnit


def node_score(free_whole_after: int, mig_after: tuple[int, int], mps_shared: int) -> tuple:
    """Largest creatable profile (compute slices), open placements, whole GPUs left, GPUs already shared by MPS."""
    return (mig_after[0], mig_after[1], free_whole_after, mps_shared)


def mig_key(used_before: int, open_before: tuple[int, int], open_after: tuple[int, int], lean: int = 0) -> tuple:
    """The fullest GPU, the slot at its profile's end of the GPU, then the slot that keeps the most placements
    open (the node was chosen by what it keeps creatable)."""
    return (used_before.bit_count(), lean, open_after[1], open_after[0])


def mps_key(percent_sum: int, clients: int, index: int) -> tuple:
    """GPUs already shared first, so unshared ones stay free for whole-GPU jobs."""
    return (clients > 0, percent_sum, -index)


class Fragmentation:
    name = "fragmentation"
    ascending = True
    candidates = 8

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        return node_score(free_whole_after, mig_after, mps_shared)

    def whole_key(self, g: GpuUnit) -> tuple:
        return (not g.mps_on, -g.index)

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        return mig_key(used_before, open_before, open_after, lean)

    def mps_key(self, g: GpuUnit) -> tuple:
        return mps_key(g.mps_pct, g.mps_clients, g.index)
