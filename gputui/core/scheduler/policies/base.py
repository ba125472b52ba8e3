"""What a placement policy decides: node order, how many feasible nodes to compare, and per-device preferences.

The engine asks the free-capacity index for candidate nodes in the policy's order (filter), then compares at
most ``candidates`` feasible placements by the policy's scores (score); every score is a tuple, higher is better.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gputui.core.scheduler.state import GpuUnit


class Policy(Protocol):
    name: str
    ascending: bool  # visit nodes with the fewest matching free units first (packing), else the most (spreading)
    candidates: int  # feasible single-node placements to compare before choosing; 1 takes the first

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int) -> tuple:
        """Rank one feasible node placement by what the node keeps free afterwards."""
        ...

    def whole_key(self, g: GpuUnit) -> tuple:
        """Rank free whole GPUs inside a node; the highest are taken first."""
        ...

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int]) -> tuple:
        """Rank creating a MIG instance on a GPU with ``used_before`` slots taken.

        ``open_before`` / ``open_after`` are :func:`mig.openness` of that GPU: (largest creatable profile's compute
        slices, open placements) before and after.
        """
        ...

    def mps_key(self, g: GpuUnit) -> tuple:
        """Rank MPS-ready GPUs inside a node; the highest get the share."""
        ...
