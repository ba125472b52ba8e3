"""The plan's problem in aggregate: GPUs in the same state on the same node form one class, waiting work with
the same needs and the same allowed nodes one group, so that the integer program's size follows the variety of
the cluster, not its size."""

from __future__ import annotations

from dataclasses import dataclass, field

from gputui.core.migplan.options import Option, options
from gputui.core.migplan.problem import Demand, PlanGpu, Problem, profile_compute


@dataclass
class GpuClass:
    node: str
    gpus: list[PlanGpu]
    options: tuple[Option, ...]


@dataclass
class DemandGroup:
    needs: tuple[tuple[str, int], ...]
    members: list[Demand]  # in queue order
    nodes: tuple[str, ...]  # the nodes where it may start (some GPU there has each profile it needs)
    compute: int = 0

    def need(self, profile: str) -> int:
        return dict(self.needs).get(profile, 0)


@dataclass
class Aggregate:
    classes: list[GpuClass]
    groups: list[DemandGroup]
    nodes: list[str]
    drain_weight: float
    profiles: list[str] = field(default_factory=list)


def aggregate(problem: Problem) -> Aggregate:
    plus_me = any(p.endswith("+me") for d in problem.demands for p, _ in d.needs) or any(
        i.slot.profile.endswith("+me") for g in problem.gpus for i in g.instances
    )
    classes: dict[tuple, GpuClass] = {}
    has: dict[str, set[str]] = {}
    nodes: list[str] = []
    for g in problem.gpus:
        if g.node not in has:
            nodes.append(g.node)
            has[g.node] = set()
        has[g.node].update(p.name for p in g.model.profiles)
        key = (g.node, g.model.key, g.instances, g.fixed) if not any(i.busy for i in g.instances) else (g.key,)
        c = classes.get(key)
        if c is None:
            classes[key] = GpuClass(g.node, [g], options(g, plus_me))
        else:
            c.gpus.append(g)
    groups: dict[tuple, DemandGroup] = {}
    for d in sorted(problem.demands, key=lambda d: d.rank):
        allowed = tuple(n for n in nodes if (d.nodes is None or n in d.nodes) and all(p in has[n] for p, _ in d.needs))
        needs = tuple(sorted(d.needs))
        grp = groups.get((needs, allowed))
        if grp is None:
            compute = sum(profile_compute(p) * k for p, k in d.needs)
            groups[(needs, allowed)] = DemandGroup(needs, [d], allowed, compute)
        else:
            grp.members.append(d)
    profiles = sorted({p for grp in groups.values() for p, _ in grp.needs})
    return Aggregate(list(classes.values()), [g for g in groups.values() if g.nodes], nodes, problem.drain_weight,
                     profiles)  # fmt: skip


@dataclass
class Solution:
    """How many GPUs of each class take each option, how many of each group start on each node."""

    choice: list[list[int]]  # per class, per option: GPUs
    starts: list[dict[str, int]]  # per group: node -> members started
    method: str  # "highs (optimal)", "heuristic"
    bound: float | None = None  # an upper bound on the objective where known (compute slices)
    objective: float = 0.0  # started - drain_weight x drained compute slices


def objective_of(agg: Aggregate, choice: list[list[int]], starts: list[dict[str, int]]) -> float:
    started = sum(grp.compute * sum(s.values()) for grp, s in zip(agg.groups, starts, strict=True))
    drained = sum(
        o.drained_compute * n
        for c, ch in zip(agg.classes, choice, strict=True)
        for o, n in zip(c.options, ch, strict=True)
    )
    w = agg.drain_weight
    return started - (w * drained if drained else 0.0)
