"""Finding an allocation for a request on the current state: the shared steps, and the dispatch by kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gputui.core.scheduler.allocation import Allocation, NodeGrant
from gputui.core.scheduler.place.host import ALL_MEMORY, host_need
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.request import JobRequest
from gputui.core.scheduler.state import ANY, CPU, MEM, MILLI, MPS, SHARD, ClusterState, NodeState


@dataclass(frozen=True, slots=True)
class Ask:
    """A request with what placement needs precomputed: its index key and its node masks."""

    request: JobRequest
    key: str  # the index key of the unit it needs most
    tag: str | None  # GPU type, lower case
    allowed: int  # nodes it may use
    required: tuple[NodeState, ...]  # nodes it must use (--nodelist)
    required_mask: int
    cpu_milli: int = 1000  # host CPUs per node in thousandths, for the usual GPUs per node (see :func:`host_on`)
    mem: int = 0  # host memory per node, MiB (ALL_MEMORY: all of it)
    host_cut: bool = False  # it needs more than one CPU or some memory: cut candidates by the CPU / memory index
    local: bool = False  # it may use only its required nodes (devices, or as many nodes as it names)

    def host_on(self, state: ClusterState, nodes: int, gpus_on_node: int) -> tuple[int, int]:
        """(thousandths of CPUs, MiB) per node when the job ends up on ``nodes`` nodes with ``gpus_on_node`` GPUs
        here."""
        return host_need(self.request, nodes, gpus_on_node, state.config.default_mem_per_cpu_mib)


def gpus_per_node(req: JobRequest) -> int:
    """GPUs (or MIG instances, or shared GPUs) each node of the job holds; a spanning total counts as one node."""
    kind = req.kind
    if kind == "count":
        return req.gpus_per_node if req.gpus_per_node is not None else (req.gpus or 0)
    if kind == "device":
        return len(req.gpu_ids)
    if kind == "mig":
        return sum(n for _, n in req.mig)
    if kind == "mps":
        return req.gpus_per_node or 1
    if kind in ("shard", "milli"):
        return 1
    return 0


def host_take(node: NodeState, cpus: int, mem: int) -> tuple[int, int] | None:
    """The (thousandths of CPUs, MiB) to take on ``node`` for a need of (``cpus``, ``mem``), or None when it
    does not fit."""
    if mem == 0:  # the usual case, without the call
        if node.cpus is not None and cpus > node.cpu_free:
            return None
        return cpus, 0
    if not node.host_fits(cpus, mem):
        return None
    return cpus, ((node.mem or 0) if mem == ALL_MEMORY else mem)


def constraint_mask(state: ClusterState, constraint: tuple[tuple[str, ...], ...]) -> int:
    """Nodes that have every feature of at least one alternative."""
    out = 0
    for alt in constraint:
        m = state.all_mask
        for f in alt:
            m &= state.feature_masks.get(f, 0)
        out |= m
    return out


def prepare(state: ClusterState, request: JobRequest) -> Ask:
    """Precompute masks and keys; unknown node names are simply not allowed (submit-time checks name them)."""
    tag = request.gpu_type.lower() if request.gpu_type else None
    if tag is not None and request.kind != "mig":
        state.index_tag(tag)
    if request.kind == "mig":
        key = "m:" + max(request.mig, key=lambda pc: (_size(pc[0]), pc[1]))[0]
    elif request.kind == "mps":
        key = MPS
    elif request.kind == "cpu":
        key = CPU
        state.index_share(CPU)
    elif request.kind in ("shard", "milli"):
        key = SHARD if request.kind == "shard" else MILLI
        state.index_share(key)
    else:
        key = "g:" + tag if tag else ANY
    required = tuple(state.by_name[n] for n in request.nodelist if n in state.by_name)
    req_mask = state.mask_of(request.nodelist)
    # the cluster's own mask object when nothing narrows it: nodes_with then skips an AND per bucket
    allowed = state.all_mask & ~state.mask_of(request.exclude) if request.exclude else state.all_mask
    if request.constraint:
        allowed &= constraint_mask(state, request.constraint)
    cpus, mem = host_need(request, request.node_count or 1, gpus_per_node(request),
                          state.config.default_mem_per_cpu_mib)  # fmt: skip
    cut = cpus > 1000 or mem > 0
    if cpus > 1000:
        state.index_share(CPU)
    if mem > 0:
        state.index_share(MEM)
    local = bool(required) and (request.kind == "device" or request.node_count == len(request.nodelist))
    return Ask(request, key, tag, allowed, required, req_mask, cpus, mem, cut, local)


def _size(profile: str) -> int:
    head = profile.split("g.", 1)[0]
    return int(head) if head.isdigit() else 0


def bits(mask: int) -> Iterator[int]:
    """Set bit positions, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def candidate_nodes(state: ClusterState, ask: Ask, key: str, at_least: int, ascending: bool) -> Iterator[NodeState]:
    """Required nodes first, then the others from the index in policy order."""
    yield from ask.required
    others = ask.allowed & ~ask.required_mask if ask.required_mask else ask.allowed
    if ask.host_cut:
        others &= state.host_mask(ask.cpu_milli, ask.mem)
    nodes = state.nodes
    for m in state.nodes_with(key, at_least, others, ascending):
        for i in bits(m):
            yield nodes[i]
    if key == CPU:  # nodes whose CPUs are not known: no CPU constraint there
        for i in bits(others & state.unknown_cpus):
            yield nodes[i]


NodePlan = Callable[[NodeState], tuple[NodeGrant, tuple] | None]


def compares(ask: Ask, n: int, policy: Policy) -> bool:
    """Whether :func:`gang` ranks node placements by score; if not it takes the first that fits, and a plan may
    leave its score empty."""
    return n == 1 and policy.candidates > 1 and not ask.required


def gang(
    state: ClusterState, ask: Ask, n: int, key: str, per_node: int, policy: Policy, plan: NodePlan
) -> Allocation | None:
    """Place on ``n`` nodes at once, each by ``plan`` (node grant, score); all or nothing.

    With one node and a policy that compares, up to ``policy.candidates`` feasible nodes are scored.
    """
    if getattr(policy, "select", None) is not None:
        return _gang_select(state, ask, n, key, per_node, policy, plan)
    chosen: list[NodeGrant] = []
    best: tuple[tuple, NodeGrant] | None = None
    seen = 0
    ranked = compares(ask, n, policy)
    for node in candidate_nodes(state, ask, key, per_node, policy.ascending):
        got = plan(node)
        if got is None:
            if node in ask.required:
                return None
            continue
        ng, score = got
        if ranked:
            seen += 1
            if best is None or score > best[0]:
                best = (score, ng)
            if seen >= policy.candidates:
                break
            continue
        if n == 1:
            return Allocation((ng,))
        chosen.append(ng)
        if len(chosen) == n:
            return Allocation(tuple(sorted(chosen, key=lambda g: state.by_name[g.node].idx)))
    if best is not None:
        return Allocation((best[1],))
    return None


def _gang_select(
    state: ClusterState, ask: Ask, n: int, key: str, per_node: int, policy: Policy, plan: NodePlan
) -> Allocation | None:
    """A policy that picks the nodes itself (``policy.select``) from every feasible node, in node order."""
    fixed: list[NodeGrant] = []
    options: list[tuple[NodeState, NodeGrant]] = []
    for node in candidate_nodes(state, ask, key, per_node, True):
        got = plan(node)
        if node in ask.required:
            if got is None:
                return None
            fixed.append(got[0])
        elif got is not None:
            options.append((node, got[0]))
    if len(fixed) > n:
        return None
    options.sort(key=lambda o: o[0].idx)
    picked = policy.select(options, n - len(fixed), ask.cpu_milli) if n > len(fixed) else []  # type: ignore[attr-defined]
    if picked is None:
        return None
    grants = fixed + [ng for _, ng in picked]
    return Allocation(tuple(sorted(grants, key=lambda g: state.by_name[g.node].idx)))
