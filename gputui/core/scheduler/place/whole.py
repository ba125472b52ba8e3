"""Whole-GPU placement: counts (per node or a total over nodes), explicit devices, and whole nodes."""

from __future__ import annotations

from operator import attrgetter

from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
from gputui.core.scheduler.place.placement import Ask, bits, candidate_nodes, compares, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, ClusterState, GpuUnit, NodeState

_INDEX = attrgetter("index")


def _free_whole(node: NodeState, key: str, mem: int | None) -> list[GpuUnit]:
    """GPUs of ``node`` free as a whole for index key ``key`` (and with at least ``mem`` MiB, if given)."""
    return [
        g for g in node.gpus
        if key in g.contrib and (mem is None or g.memory_mib is None or g.memory_mib >= mem)
    ]  # fmt: skip


def _grants(gpus: list[GpuUnit]) -> tuple[GpuGrant, ...]:
    """Whole-GPU grants in index order; each GPU's grant (immutable, the same for every job) is made once."""
    out = []
    for g in sorted(gpus, key=_INDEX):
        gr = g.grant
        if gr is None:
            gr = g.grant = GpuGrant(g.index, g.uuid)
        out.append(gr)
    return tuple(out)


def _pick(node: NodeState, key: str, k: int, mem: int | None, policy: Policy) -> tuple[GpuGrant, ...] | None:
    free = _free_whole(node, key, mem)
    if len(free) < k:
        return None
    if len(free) > k:
        free.sort(key=policy.whole_key, reverse=True)
    return _grants(free[:k])


def place_count(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    req = ask.request
    key, mem = ask.key, req.gpu_mem_mib
    workload = state.config.workload
    if req.gpus_per_node is not None:
        k, n = req.gpus_per_node, req.nodes or 1
        if state.totals.get(key, 0) < k * n:
            return None
        ranked = compares(ask, n, policy)

        def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
            host = host_take(node, ask.cpu_milli, ask.mem)
            if host is None:
                return None
            got = _pick(node, key, k, mem, policy)
            if got is None:
                return None
            ng = NodeGrant(node.name, got, cpu_milli=host[0], mem_mib=host[1])
            if not ranked:
                return ng, ()
            return ng, policy.node_score(node.counts.get(ANY, 0) - k, (0, 0), 0, NodeView(node, ng, workload))

        return gang(state, ask, n, key, k, policy, plan)
    total = req.gpus or 0
    if state.totals.get(key, 0) < total:
        return None
    if getattr(policy, "select_total", None) is not None:
        return _total_select(state, ask, total, policy)
    if req.nodes is None and not ask.required:
        for node in candidate_nodes(state, ask, key, total, policy.ascending):  # one node if one will do
            host = host_take(node, ask.cpu_milli, ask.mem)
            if host is None:
                continue
            got = _pick(node, key, total, mem, policy)
            if got is not None:
                return Allocation((NodeGrant(node.name, got, cpu_milli=host[0], mem_mib=host[1]),))
    return _span(state, ask, total, policy)


def _span(state: ClusterState, ask: Ask, total: int, policy: Policy) -> Allocation | None:
    """A total over several nodes: as few nodes as possible (or exactly --nodes), the last one best-fit.

    Nodes are picked where one GPU's share of the host need fits; each node's real share is checked at the end.
    """
    req, key = ask.request, ask.key
    fixed = req.nodes
    low_cpus, low_mem = ask.host_on(state, fixed or total, 1)

    def free_whole(node: NodeState, key: str, mem: int | None) -> list[GpuUnit]:
        if not node.host_fits(low_cpus, low_mem):
            return []
        return _free_whole(node, key, mem)

    mem = req.gpu_mem_mib
    picks: list[tuple[NodeState, list[GpuUnit]]] = []
    for req_node in ask.required:
        free = free_whole(req_node, key, mem)
        if not free:
            return None
        picks.append((req_node, free))
    have = sum(len(f) for _, f in picks)
    used = ask.required_mask
    while (have < total and fixed is None) or (fixed is not None and len(picks) < fixed):
        others = ask.allowed & ~used
        rest = total - have
        node: NodeState | None = None
        if fixed is None or len(picks) == fixed - 1:  # the last node: the tightest that completes the job
            for m in state.nodes_with(key, rest, others, policy.ascending):
                for i in bits(m):
                    cand = state.nodes[i]
                    if len(free_whole(cand, key, mem)) >= rest:
                        node = cand
                        break
                if node is not None:
                    break
        if node is None:
            for m in state.nodes_with(key, 1, others, False):
                for i in bits(m):
                    if free_whole(state.nodes[i], key, mem):
                        node = state.nodes[i]
                        break
                if node is not None:
                    break
        if node is None:
            return None
        used |= node.bit
        free = free_whole(node, key, mem)
        picks.append((node, free))
        have += len(free)
    if have < total or len(picks) > total:
        return None
    # every node gets one GPU, then the rest are filled in order
    shares = [1] * len(picks)
    left = total - len(picks)
    for i, (_, free) in enumerate(picks):
        extra = min(left, len(free) - 1)
        shares[i] += extra
        left -= extra
    out = []
    for (node, free), k in zip(picks, shares, strict=True):
        host = host_take(node, *ask.host_on(state, len(picks), k))
        if host is None:
            return None
        free.sort(key=policy.whole_key, reverse=True)
        out.append((node.idx, NodeGrant(node.name, _grants(free[:k]), cpu_milli=host[0], mem_mib=host[1])))
    return Allocation(tuple(ng for _, ng in sorted(out, key=lambda t: t[0])))


def _total_select(state: ClusterState, ask: Ask, total: int, policy: Policy) -> Allocation | None:
    """A GPU total placed by a policy that picks nodes and counts itself (``policy.select_total``)."""
    req, key, mem = ask.request, ask.key, ask.request.gpu_mem_mib
    low_cpus, low_mem = ask.host_on(state, req.nodes or 1, 1)
    options: list[tuple[NodeState, list[GpuUnit]]] = []
    for node in candidate_nodes(state, ask, key, 1, True):
        free = _free_whole(node, key, mem) if node.host_fits(low_cpus, low_mem) else []
        if node in ask.required and not free:
            return None
        if free:
            free.sort(key=policy.whole_key, reverse=True)
            options.append((node, free))
    options.sort(key=lambda o: o[0].idx)
    required = [o for o in options if o[0] in ask.required]
    rest = [o for o in options if o[0] not in ask.required]
    have = sum(len(f) for _, f in required)
    picked: list[tuple[NodeState, int]] = [(nd, min(len(f), total)) for nd, f in required]
    if have < total or (req.nodes or 0) > len(required):
        nodes_left = (req.nodes - len(required)) if req.nodes else None
        more = policy.select_total(rest, total - sum(k for _, k in picked), nodes_left, low_cpus)  # type: ignore[attr-defined]
        if more is None:
            return None
        picked += more
    if sum(k for _, k in picked) != total:
        return None
    frees = dict((nd.name, f) for nd, f in options)
    out = []
    for node, k in sorted(picked, key=lambda t: t[0].idx):
        host = host_take(node, *ask.host_on(state, len(picked), k))
        if host is None:
            return None
        out.append(NodeGrant(node.name, _grants(frees[node.name][:k]), cpu_milli=host[0], mem_mib=host[1]))
    return Allocation(tuple(out))


def place_device(state: ClusterState, ask: Ask) -> Allocation | None:
    """Exactly the listed GPUs of the one named node, or nothing: devices are never substituted."""
    if not ask.required:
        return None
    node = ask.required[0]
    if not ask.allowed & node.bit:
        return None
    host = host_take(node, ask.cpu_milli, ask.mem)
    if host is None:
        return None
    grants = []
    for idx in ask.request.gpu_ids:
        g = node.by_index.get(idx)
        if g is None or ANY not in g.contrib:
            return None
        grants.append(g)
    return Allocation((NodeGrant(node.name, _grants(grants), cpu_milli=host[0], mem_mib=host[1]),))


def node_grants_all(node: NodeState) -> tuple[GpuGrant, ...]:
    """Every GPU of a node (each MIG instance on MIG GPUs), as an exclusive job holds them."""
    out: list[GpuGrant] = []
    for g in sorted(node.gpus, key=lambda g: g.index):
        if g.mig:
            for s in g.instances:
                if s.gi_id is not None and s.name:
                    out.append(GpuGrant(g.index, g.uuid, mig=MigGrant(s.gi_id, s.name, s.start, s.size, s.cis)))
        else:
            out.append(GpuGrant(g.index, g.uuid))
    return tuple(out)


def place_exclusive(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    """Whole idle nodes: ``--exclusive`` with a GPU count per node or in total, or with none."""
    req, key = ask.request, ask.key
    idle = state.idle_mask
    if ask.required_mask & ~idle & state.all_mask:
        return None
    pool = ask.allowed & idle & ~ask.required_mask
    chosen = list(ask.required)
    per_node = req.gpus_per_node or (0 if req.kind == "nodes" else 1)
    for n in chosen:
        if n.counts.get(key, 0) < per_node or not n.host_fits(ask.cpu_milli, ask.mem):
            return None
    want_nodes = req.nodes
    total = req.gpus
    have = sum(n.counts.get(key, 0) for n in chosen)

    def done() -> bool:
        if want_nodes is not None and len(chosen) < want_nodes:
            return False
        return total is None or have >= total

    if not done():
        if getattr(policy, "node_order", False):
            masks = [pool & state.at_least_mask(key, per_node)] if per_node else [pool]
        elif per_node:
            masks = [m & pool for m in state.nodes_with(key, per_node, pool, total is None and policy.ascending)]
        else:
            masks = [pool]
        for m in masks:
            for i in bits(m):
                node = state.nodes[i]
                if not node.host_fits(ask.cpu_milli, ask.mem):
                    continue
                chosen.append(node)
                have += node.counts.get(key, 0)
                if done():
                    break
            if done():
                break
    if not done() or (want_nodes is not None and len(chosen) != want_nodes):
        return None
    chosen.sort(key=lambda n: n.idx)
    return Allocation(tuple(
        NodeGrant(n.name, node_grants_all(n), exclusive=True, cpu_milli=n.cpu_milli or ask.cpu_milli,
                  mem_mib=n.mem or 0)
        for n in chosen
    ))  # fmt: skip
