"""Finding an allocation for a request on the current state: the shared steps, and the dispatch by kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gputui.core.scheduler.allocation import Allocation, NodeGrant
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.request import JobRequest
from gputui.core.scheduler.state import ANY, ClusterState, NodeState


@dataclass(frozen=True, slots=True)
class Ask:
    """A request with what placement needs precomputed: its index key and its node masks."""

    request: JobRequest
    key: str  # the index key of the unit it needs most
    tag: str | None  # GPU type, lower case
    allowed: int  # nodes it may use
    required: tuple[NodeState, ...]  # nodes it must use (--nodelist)
    required_mask: int


def prepare(state: ClusterState, request: JobRequest) -> Ask:
    """Precompute masks and keys; unknown node names are simply not allowed (submit-time checks name them)."""
    tag = request.gpu_type.lower() if request.gpu_type else None
    if tag is not None and request.kind != "mig":
        state.index_tag(tag)
    if request.kind == "mig":
        key = "m:" + max(request.mig, key=lambda pc: (_size(pc[0]), pc[1]))[0]
    elif request.kind == "mps":
        key = "mps"
    else:
        key = "g:" + tag if tag else ANY
    required = tuple(state.by_name[n] for n in request.nodelist if n in state.by_name)
    req_mask = state.mask_of(request.nodelist)
    allowed = state.all_mask & ~state.mask_of(request.exclude)
    return Ask(request, key, tag, allowed, required, req_mask)


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
    others = ask.allowed & ~ask.required_mask
    nodes = state.nodes
    for m in state.nodes_with(key, at_least, others, ascending):
        for i in bits(m):
            yield nodes[i]


NodePlan = Callable[[NodeState], tuple[NodeGrant, tuple] | None]


def gang(
    state: ClusterState, ask: Ask, n: int, key: str, per_node: int, policy: Policy, plan: NodePlan
) -> Allocation | None:
    """Place on ``n`` nodes at once, each by ``plan`` (node grant, score); all or nothing.

    With one node and a policy that compares, up to ``policy.candidates`` feasible nodes are scored.
    """
    chosen: list[NodeGrant] = []
    best: tuple[tuple, NodeGrant] | None = None
    seen = 0
    for node in candidate_nodes(state, ask, key, per_node, policy.ascending):
        got = plan(node)
        if got is None:
            if node in ask.required:
                return None
            continue
        ng, score = got
        if n == 1 and policy.candidates > 1 and not ask.required:
            seen += 1
            if best is None or score > best[0]:
                best = (score, ng)
            if seen >= policy.candidates:
                break
            continue
        chosen.append(ng)
        if len(chosen) == n:
            return Allocation(tuple(sorted(chosen, key=lambda g: state.by_name[g.node].idx)))
    if best is not None:
        return Allocation((best[1],))
    return None
