"""A trace policy inside the live scheduler: the same scoring function ranks the embedded core's placements.

The core's placers find the feasible nodes and build each candidate grant; this adapter scores it with the trace
policy on the node's state before the placement (:class:`shapes.NodeFree`) and the request (:class:`shapes.PodShape`)
read from the grant, and breaks ties by the node's order in the cluster (lowest first), as the simulator does. The
core chooses the GPUs: the tightest for a share, the lowest idle indices for whole GPUs - FGD's own choice of a
share's GPU (by its score) is the simulator's only. A test places a slice of the openb trace both ways and compares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gputui.core.scheduler.allocation import NodeGrant
from gputui.core.scheduler.policies import best_fit
from gputui.core.scheduler.policies.base import NodeView
from gputui.core.scheduler.policies.shapes import MILLI, NodeFree, PodShape
from gputui.core.scheduler.policies.trace_policy import TracePolicy

if TYPE_CHECKING:
    from gputui.core.scheduler.state import GpuUnit


def node_free(view: NodeView) -> NodeFree:
    """The node of ``view`` before its placement, in the trace policies' terms."""
    n = view.node
    before = NodeView(n, NodeGrant(n.name, ()), view.workload)
    models = before.models()
    return NodeFree(n.cpu_free if n.cpus is not None else 1 << 40, n.mem_free if n.mem is not None else 1 << 40,
                    before.gpu_free_milli(), models[0] or "" if models else "")  # fmt: skip


def pod_shape(grant: NodeGrant) -> PodShape:
    """The request a grant serves: CPUs, memory, GPUs and thousandths per GPU."""
    gpus = grant.gpus
    if not gpus:
        return PodShape(grant.cpu_milli, grant.mem_mib, 0, 0)
    milli = gpus[0].milli if gpus[0].milli is not None else MILLI
    return PodShape(grant.cpu_milli, grant.mem_mib, len(gpus), milli)


class TraceInCore:
    """The live-core :class:`~gputui.core.scheduler.policies.base.Policy` of a trace policy."""

    ascending = True
    candidates = 1 << 30  # every feasible node is scored, as in FGD's protocol

    def __init__(self, policy: TracePolicy) -> None:
        if policy.uses_affinity or policy.randomised:
            raise ValueError(f"{policy.name}: needs the simulator (its state is not part of the live core)")
        self.trace = policy
        self.name = policy.name

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        score, _ = self.trace.evaluate(node_free(view), pod_shape(view.grant))
        return (score, -view.node.idx)

    def whole_key(self, g: GpuUnit) -> tuple:
        return (-g.index,)  # the lowest idle indices, as the trace policies take them

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int]) -> tuple:
        return best_fit.mig_key(used_before, open_before, open_after)

    def mps_key(self, g: GpuUnit) -> tuple:
        return best_fit.mps_key(g.mps_pct, g.mps_clients, g.index)
