"""MPS placement: a percentage share of K GPUs per node, only on MPS GPUs that no job holds whole.

A share goes where the GPU's sum stays within 100 % while any such GPU exists (the "mpsroom" index finds the
nodes); only then is a GPU pushed past 100 %, the least loaded one of the node first, which MPS allows (it does not
queue) and the decision warns about.
"""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.place.placement import Ask, compares, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, MPS, MPS_ROOM, ClusterState, GpuUnit, NodeState


def mps_ready(state: ClusterState, g: GpuUnit, ask: Ask) -> bool:
    """Whether ``g`` can take this share now: daemon up, not held whole, under the cap, client and memory limits."""
    if MPS not in g.contrib or (ask.tag is not None and ask.tag not in g.tags):
        return False
    cfg, req = state.config, ask.request
    pct = req.mps_percent or 0
    if cfg.mps_percent_cap is not None and g.mps_pct + pct > cfg.mps_percent_cap:
        return False
    mem = req.gpu_mem_mib or 0
    return not (cfg.mps_strict_memory and g.memory_mib is not None and g.mps_mem + mem > g.memory_mib)


def _order(g: GpuUnit, pct: int, policy: Policy) -> tuple:
    """GPUs the share fits under 100 % first, in the policy's order; past 100 %, the least loaded first."""
    if g.mps_pct + pct <= 100:
        return (True, policy.mps_key(g))
    return (False, -g.mps_pct, -g.index)


def place(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    req = ask.request
    k, n = req.gpus_per_node or 1, req.nodes or 1
    if state.totals.get(MPS, 0) < k * n:
        return None
    pct, mem = req.mps_percent or 0, req.gpu_mem_mib or 0
    default_pipe = state.config.mps_pipe_directory
    workload = state.config.workload
    ranked = compares(ask, n, policy)
    first_only = getattr(policy, "mps_first_only", False)

    def plan_with(within: bool):  # type: ignore[no-untyped-def]
        def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
            host = host_take(node, ask.cpu_milli, ask.mem)
            if host is None:
                return None
            if first_only:  # Slurm: the first GPU no whole-GPU job holds, or none
                cand = sorted((g for g in node.gpus if MPS in g.contrib), key=lambda g: g.index)[:k]
                ready = [g for g in cand if mps_ready(state, g, ask) and (not within or g.mps_pct + pct <= 100)]
            else:
                ready = [g for g in node.gpus if mps_ready(state, g, ask) and (not within or g.mps_pct + pct <= 100)]
            if len(ready) < k:
                return None
            ready.sort(key=lambda g: _order(g, pct, policy), reverse=True)
            chosen = sorted(ready[:k], key=lambda g: g.index)
            grants = tuple(GpuGrant(g.index, g.uuid, mps_percent=pct, mps_memory_mib=mem) for g in chosen)
            pipe = next((g.mps_pipe for g in chosen if g.mps_pipe), default_pipe)
            ng = NodeGrant(node.name, grants, mps_pipe_directory=pipe, cpu_milli=host[0], mem_mib=host[1])
            if not ranked:
                return ng, ()
            shared = sum(1 for g in chosen if g.mps_clients)
            whole_after = node.counts.get(ANY, 0) - sum(1 for g in chosen if ANY in g.contrib)
            return ng, policy.node_score(whole_after, (0, 0), shared, NodeView(node, ng, workload))

        return plan

    if pct <= 100 and state.top(MPS_ROOM) >= pct:
        got = gang(state, ask, n, MPS_ROOM, pct, policy, plan_with(True))
        if got is not None:
            return got
    return gang(state, ask, n, MPS, k, policy, plan_with(False))
