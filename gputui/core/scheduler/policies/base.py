"""What a placement policy decides: node order, how many feasible nodes to compare, and per-device preferences.

The engine asks the free-capacity index for candidate nodes in the policy's order (filter), then compares at
most ``candidates`` feasible placements by the policy's scores (score); every score is a tuple, higher is better.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gputui.core.scheduler.allocation import NodeGrant
    from gputui.core.scheduler.state import GpuUnit, NodeState


class NodeView:
    """One candidate placement on one node as a policy may see it: the whole node after the placement.

    Read-only and computed on demand, so that a policy that looks at nothing pays nothing. ``workload`` is the
    configured description of the expected workload (``SchedulerConfig.workload``), for fragmentation-aware
    policies.
    """

    __slots__ = ("node", "grant", "workload")

    def __init__(self, node: NodeState, grant: NodeGrant, workload: tuple = ()) -> None:
        self.node = node
        self.grant = grant
        self.workload = workload

    @property
    def cpu_milli_left(self) -> int | None:
        """Thousandths of CPUs left on the node after the placement; None where its CPUs are not known."""
        n = self.node
        return None if n.cpus is None else n.cpu_free - self.grant.cpu_milli

    @property
    def memory_left_mib(self) -> int | None:
        n = self.node
        return None if n.mem is None else n.mem_free - self.grant.mem_mib

    def gpu_free_milli(self) -> tuple[int, ...]:
        """Per GPU (in index order), the thousandths still free for a new job after this placement."""
        taken: dict[int, int] = {}
        for gr in self.grant.gpus:
            taken[gr.index] = taken.get(gr.index, 0) + (gr.milli if gr.milli is not None else 1000)
        out = []
        for g in sorted(self.node.gpus, key=lambda g: g.index):
            if g.lost or g.busy or g.mig or g.holder is not None or g.mps_jobs or g.foreign_clients:
                free = 0
            elif g.shards:
                free = (g.shards - g.shards_used) * 1000 // g.shards
            else:
                free = 1000 - g.milli_used
            out.append(max(0, free - taken.get(g.index, 0)))
        return tuple(out)

    def models(self) -> tuple[str | None, ...]:
        """Per GPU, its model key ("A100-40GB") where the MIG tables know it, else its name."""
        return tuple(g.model.key if g.model else g.name for g in sorted(self.node.gpus, key=lambda g: g.index))

    def mps_percent(self) -> tuple[int, ...]:
        """Per GPU, the MPS percentage in use after this placement."""
        add: dict[int, int] = {gr.index: gr.mps_percent for gr in self.grant.gpus if gr.mps_percent is not None}
        return tuple(g.mps_pct + add.get(g.index, 0) for g in sorted(self.node.gpus, key=lambda g: g.index))


class Policy(Protocol):
    name: str
    ascending: bool  # visit nodes with the fewest matching free units first (packing), else the most (spreading)
    candidates: int  # feasible single-node placements to compare before choosing; 1 takes the first

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        """Rank one feasible node placement by what the node keeps free afterwards; ``view`` shows the whole node."""
        ...

    def whole_key(self, g: GpuUnit) -> tuple:
        """Rank free whole GPUs inside a node; the highest are taken first."""
        ...

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        """Rank creating a MIG instance on a GPU with ``used_before`` slots taken (among the slots that strand no
        compute slices, when there are such: the placer ranks by that first).

        ``open_before`` / ``open_after`` are :func:`mig.openness` of that GPU: (largest creatable profile's compute
        slices, open placements) before and after; ``lean`` is :func:`mig.lean` of the slot.
        """
        ...

    def mps_key(self, g: GpuUnit) -> tuple:
        """Rank MPS-ready GPUs inside a node; the highest get the share."""
        ...
