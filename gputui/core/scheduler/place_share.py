"""Fractional GPUs without MPS: Slurm's GPU shards (``--gres=shard:N``) and thousandths of one GPU (``gpu_milli``).

Either takes part of one GPU that no job holds whole, MPS or the other kind of share; the "shard" / "milli" index
holds each node's best GPU, so the nodes tried are only those where the share fits.
"""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.placement import Ask, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, SHARD, ClusterState, GpuUnit, NodeState


def share_free(g: GpuUnit, shard: bool) -> int:
    """Free shards (or thousandths) of ``g`` for a new share of that kind; its entry in the best-of index."""
    return g.best[1] if shard else g.best[2]


def place(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    req = ask.request
    shard = ask.key == SHARD
    want = (req.shards if shard else req.gpu_milli) or 0
    if state.top(ask.key) < want:
        return None
    tag, mem = ask.tag, req.gpu_mem_mib
    n = req.nodes or 1
    workload = state.config.workload

    def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
        host = host_take(node, ask.cpus, ask.mem)
        if host is None:
            return None
        fits = [
            g for g in node.gpus
            if share_free(g, shard) >= want and (tag is None or tag in g.tags)
            and (mem is None or g.memory_mib is None or g.memory_mib >= mem)
        ]  # fmt: skip
        if not fits:
            return None
        # the GPU already most used that still fits (best fit inside the node), unless the policy spreads
        fits.sort(key=lambda g: (share_free(g, shard), g.index), reverse=not policy.ascending)
        g = fits[0]
        gr = GpuGrant(g.index, g.uuid, shards=want) if shard else GpuGrant(g.index, g.uuid, milli=want)
        ng = NodeGrant(node.name, (gr,), cpus=host[0], mem_mib=host[1])
        whole_after = node.counts.get(ANY, 0) - (1 if ANY in g.contrib else 0)
        return ng, policy.node_score(whole_after, (0, 0), 0, NodeView(node, ng, workload))

    return gang(state, ask, n, ask.key, want, policy, plan)
