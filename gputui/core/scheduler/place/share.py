"""Fractional GPUs without MPS: Slurm's GPU shards (``--gres=shard:N``) and thousandths of one GPU (``gpu_milli``).

Either takes part of one GPU that no job holds whole, MPS or the other kind of share; the "shard" / "milli" index
holds each node's best GPU, so the nodes tried are only those where the share fits.
"""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.place.placement import Ask, compares, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, MILLI_STEP, SHARD, ClusterState, GpuUnit, NodeState, in_steps


def share_free(g: GpuUnit, shard: bool) -> int:
    """Free shards (or thousandths) of ``g`` for a new share of that kind (0 where it takes none)."""
    if shard:
        return g.best[1]
    return 1000 - g.milli_used if g.best[2] else 0


def place(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    req = ask.request
    shard = ask.key == SHARD
    want = (req.shards if shard else req.gpu_milli) or 0
    at_least = want if shard else in_steps(want, MILLI_STEP)  # the index's unit; the index finds no node if none has
    tag, mem = ask.tag, req.gpu_mem_mib
    n = req.nodes or 1
    workload = state.config.workload
    slot, ascending = (1 if shard else 2), policy.ascending
    ranked = compares(ask, n, policy)

    def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
        host = host_take(node, ask.cpu_milli, ask.mem)
        if host is None:
            return None
        # the GPU that fits with the least to spare (best fit inside the node), or the most when the policy spreads
        best: GpuUnit | None = None
        best_free = 0
        for g in node.gpus:
            if not g.best[slot]:
                continue
            free = g.best[1] if shard else 1000 - g.milli_used  # share_free, inlined
            if free < want or (tag is not None and tag not in g.tags):
                continue
            if mem is not None and g.memory_mib is not None and g.memory_mib < mem:
                continue
            if best is None or (free < best_free if ascending else free > best_free):
                best, best_free = g, free
        if best is None:
            return None
        g = best
        gr = GpuGrant(g.index, g.uuid, shards=want) if shard else GpuGrant(g.index, g.uuid, milli=want)
        ng = NodeGrant(node.name, (gr,), cpu_milli=host[0], mem_mib=host[1])
        if not ranked:
            return ng, ()
        whole_after = node.counts.get(ANY, 0) - (1 if ANY in g.contrib else 0)
        return ng, policy.node_score(whole_after, (0, 0), 0, NodeView(node, ng, workload))

    return gang(state, ask, n, ask.key, at_least, policy, plan)
