"""CPU-only jobs: CPUs and host memory on as many nodes as asked, never a GPU."""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, NodeGrant
from gputui.core.scheduler.place.placement import Ask, compares, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, CPU, CPU_STEP, ClusterState, NodeState, in_steps


def place(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    n = ask.request.nodes or 1
    whole = in_steps(ask.cpu_milli, CPU_STEP)  # the CPU index's unit
    if state.top(CPU) < whole and not state.unknown_cpus:
        return None  # no node has that many CPUs free: answered without looking at one
    workload = state.config.workload
    ranked = compares(ask, n, policy)

    def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
        if node.exclusive is not None:
            return None
        host = host_take(node, ask.cpu_milli, ask.mem)
        if host is None:
            return None
        ng = NodeGrant(node.name, (), cpu_milli=host[0], mem_mib=host[1])
        if not ranked:
            return ng, ()
        return ng, policy.node_score(node.counts.get(ANY, 0), (0, 0), 0, NodeView(node, ng, workload))

    return gang(state, ask, n, CPU, whole, policy, plan)
