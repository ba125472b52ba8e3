"""MIG placement: existing free GPU instances first (static MIG, as in Slurm); in dynamic mode, new instances in
free slots, following the model's placement table and keeping the most future placements open."""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
from gputui.core.scheduler.mig import free_starts, lean, openness, stranded
from gputui.core.scheduler.place.placement import Ask, gang, host_take
from gputui.core.scheduler.policies.base import NodeView, Policy
from gputui.core.scheduler.state import ANY, ClusterState, GpuUnit, MigSlot, NodeState


def _size(profile: str) -> int:
    head = profile.split("g.", 1)[0]
    return int(head) if head.isdigit() else 0


class _Draft:
    """Per-GPU bookkeeping while one node's plan is built, so that one plan never double-books."""

    __slots__ = ("used", "compute", "counts", "gi_ids", "stranded")

    def __init__(self, g: GpuUnit) -> None:
        self.stranded = 0  # compute slices the instances created in this plan strand for good
        self.used = g.used_mask
        self.compute = g.compute_used
        self.counts: dict[str, int] = {}
        for s in g.instances:
            if s.name:
                self.counts[s.name] = self.counts.get(s.name, 0) + 1
        self.gi_ids = {s.gi_id for s in g.instances}


def _existing(g: GpuUnit, taken: set[int], profile: str) -> MigSlot | None:
    for s in g.instances:
        if s.name == profile and s.holder is None and not s.busy and id(s) not in taken:
            return s
    return None


def plan_node(state: ClusterState, node: NodeState, ask: Ask, policy: Policy,
              no_strand: bool = False) -> tuple[NodeGrant, tuple] | None:  # fmt: skip
    """Every MIG instance the request needs on this node, or None (also when ``no_strand`` and the instances it
    would create strand compute slices for good)."""
    dynamic = state.config.mig_dynamic
    tag = ask.tag
    host = host_take(node, ask.cpu_milli, ask.mem)
    if host is None:
        return None
    gpus = [g for g in node.gpus if g.mig and not g.busy and not g.lost and (tag is None or tag in g.tags)]
    if not gpus:
        return None
    drafts = {g.index: _Draft(g) for g in gpus} if dynamic else {}
    taken: set[int] = set()
    grants: list[GpuGrant] = []
    demands = sorted(ask.request.mig, key=lambda pc: -_size(pc[0]))
    mem = ask.request.gpu_mem_mib
    for profile, count in demands:
        for _ in range(count):
            got = None
            for g in gpus:
                s = _existing(g, taken, profile)
                if s is not None and s.gi_id is not None:
                    if mem is not None and s.profile and (s.profile.memory_mib_estimate or mem) < mem:
                        continue
                    taken.add(id(s))
                    got = GpuGrant(g.index, g.uuid, mig=MigGrant(s.gi_id, profile, s.start, s.size, s.cis))
                    break
            if got is None and dynamic:
                got = _create(gpus, drafts, profile, mem, policy)
            if got is None:
                return None
            grants.append(got)
    if no_strand and any(d.stranded for d in drafts.values()):
        return None
    after = (0, 0)
    if policy.candidates > 1:
        largest = total = 0
        for d_idx, d in drafts.items():
            g = node.by_index[d_idx]
            if g.model is not None and g.dyn_ok:
                lg, tot = openness(g.model, d.used, d.compute)
                largest, total = max(largest, lg), total + tot
        after = (largest, total)
    grants.sort(key=lambda gr: (gr.index, gr.mig.gi_id if gr.mig else 0))
    ng = NodeGrant(node.name, tuple(grants), cpu_milli=host[0], mem_mib=host[1])
    if policy.candidates <= 1:
        return ng, ()  # the first node that fits is taken: no score needed
    return ng, policy.node_score(node.counts.get(ANY, 0), after, 0, NodeView(node, ng, state.config.workload))


def _create(gpus: list[GpuUnit], drafts: dict[int, _Draft], profile: str, mem: int | None,
            policy: Policy) -> GpuGrant | None:  # fmt: skip
    best: tuple[tuple, GpuUnit, int] | None = None
    for g in gpus:
        if not g.dyn_ok or g.model is None:
            continue
        p = g.model.profile(profile)
        if p is None or (mem is not None and (p.memory_mib_estimate or mem) < mem):
            continue
        d = drafts[g.index]
        before: tuple[int, int] | None = None
        for start in free_starts(g.model, p, d.used, d.compute, d.counts.get(p.name, 0)):
            if before is None:
                before = openness(g.model, d.used, d.compute)
            after = openness(g.model, d.used | p.placement_mask(start), d.compute + p.compute_slices)
            # first the slot (on any GPU) that strands no compute slices for good, then the policy's preference
            key = (
                -stranded(g.model, p, start, d.used, d.compute),
                *policy.mig_key(d.used, before, after, lean(p, start)),
            )
            if best is None or key > best[0]:
                best = (key, g, start)
    if best is None:
        return None
    key, g, start = best
    assert g.model is not None
    p = g.model.profile(profile)
    assert p is not None
    d = drafts[g.index]
    d.stranded -= key[0]
    d.used |= p.placement_mask(start)
    d.compute += p.compute_slices
    d.counts[p.name] = d.counts.get(p.name, 0) + 1
    gi = 1
    while gi in d.gi_ids:
        gi += 1
    d.gi_ids.add(gi)
    size = dict(p.placements)[start]
    return GpuGrant(g.index, g.uuid, mig=MigGrant(gi, p.name, start, size, ((0, None),), created=True))


def place(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    req = ask.request
    n = req.nodes or 1
    for profile, count in req.mig:  # whole-cluster check before any node is looked at
        if state.totals.get("m:" + profile, 0) < count * n:
            return None
    need = dict(req.mig)
    first_count = need[ask.key[2:]]

    strict = [state.config.mig_dynamic and n == 1]

    def plan(node: NodeState) -> tuple[NodeGrant, tuple] | None:
        for profile, count in req.mig:
            if node.counts.get("m:" + profile, 0) < count:
                return None
        return plan_node(state, node, ask, policy, strict[0])

    # dynamic MIG: first a node where the new instances strand no compute slices, only then any node
    got = gang(state, ask, n, ask.key, first_count, policy, plan)
    if got is None and strict[0]:
        strict[0] = False
        got = gang(state, ask, n, ask.key, first_count, policy, plan)
    return got
