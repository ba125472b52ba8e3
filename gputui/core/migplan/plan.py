"""The advisor's answer: per GPU the layout now and proposed, what drains, what starts, and the commands.

``make_plan`` solves exactly with HiGHS where it is installed and the problem is small enough, else with the
heuristic of :mod:`solve_greedy` and an upper bound, so that the answer says how far from the optimum it may be.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gputui.core.migplan import solve_greedy, solve_ip
from gputui.core.migplan.aggregate import Aggregate, Solution, aggregate
from gputui.core.migplan.layouts import Layout, Slot
from gputui.core.migplan.problem import Demand, Instance, PlanGpu, Problem, Work, profile_compute
from gputui.core.migplan.smi_commands import LiveInstance, commands

#: Columns of the integer program above which the heuristic is used instead.
MAX_IP_COLUMNS = 20_000


@dataclass(frozen=True, slots=True)
class GpuPlan:
    gpu: PlanGpu
    layout: Layout  # proposed
    removed: tuple[Instance, ...]
    created: tuple[Slot, ...]
    drained: tuple[Work, ...]
    starts: tuple[tuple[Slot, Demand], ...]
    commands: tuple[tuple[str, ...], ...]

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.created)


@dataclass(frozen=True, slots=True)
class Plan:
    gpus: tuple[GpuPlan, ...]
    started: tuple[Demand, ...]
    waiting: tuple[Demand, ...]  # still waiting after the plan
    method: str
    objective: float  # compute slices started less drain_weight x drained
    bound: float | None  # an upper bound on the objective (equal to it when proven optimal)
    seconds: float
    started_compute: int
    drained_compute: int

    @property
    def gap(self) -> float | None:
        """How far below the bound the objective may be, as a fraction of the bound."""
        if self.bound is None or self.bound <= 0:
            return None if self.bound is None else 0.0
        return max(0.0, (self.bound - self.objective) / self.bound)


def _realise(agg: Aggregate, sol: Solution) -> list[tuple[PlanGpu, Layout, dict[Slot, Demand]]]:
    per_node: dict[str, list[tuple[PlanGpu, Layout, dict[Slot, Demand]]]] = {}
    for c, ch in zip(agg.classes, sol.choice, strict=True):
        gpus = iter(c.gpus)
        for o, n in zip(c.options, ch, strict=True):
            for _ in range(n):
                per_node.setdefault(c.node, []).append((next(gpus), o.layout, {}))
    for grp, starts in zip(agg.groups, sol.starts, strict=True):
        members = iter(grp.members)
        for node, k in starts.items():
            entries = per_node[node]
            for _ in range(k):
                m = next(members)
                for p, count in grp.needs:
                    for _ in range(count):
                        _give(entries, p, m)
    out = []
    for entries in per_node.values():
        out.extend(entries)
    return out


def _give(entries: list[tuple[PlanGpu, Layout, dict[Slot, Demand]]], profile: str, m: Demand) -> None:
    """Give ``m`` a free instance of ``profile``: an existing idle one first (no command), else a new one."""
    for want_existing in (True, False):
        for gpu, layout, given in entries:
            idle = {i.slot for i in gpu.instances if not i.busy}
            busy = {i.slot for i in gpu.instances if i.busy}
            for s in layout:
                if s.profile != profile or s in given or s in busy or (s in idle) != want_existing:
                    continue
                given[s] = m
                return
    raise AssertionError(f"no free {profile} for {m.key}: the solution broke its own capacity rows")


def finish(gpu: PlanGpu, layout: Layout, given: dict[Slot, Demand]) -> GpuPlan:
    """The proposal for one GPU: ``layout`` less the new instances nobody was given, with its commands."""
    existing = {i.slot: i for i in gpu.instances}
    final = tuple(sorted(s for s in layout if s in existing or s in given))
    inside = set(final)
    removed = tuple(i for i in gpu.instances if i.slot not in inside)
    created = tuple(s for s in final if s not in existing)
    drained = tuple(w for i in removed for w in i.holders)
    live = [LiveInstance(i.gi_id, i.slot, i.ci_ids) for i in removed if i.gi_id is not None]
    cmds = commands(gpu.index, gpu.model, live, list(created))
    starts = tuple(sorted(given.items(), key=lambda sd: (sd[1].rank, sd[0])))
    return GpuPlan(gpu, final, removed, created, drained, starts, tuple(tuple(c) for c in cmds))


def make_plan(problem: Problem, solver: str = "auto", time_limit_s: float = 4.0) -> Plan:
    """Plan ``problem``; ``solver``: "auto" (HiGHS if installed), "highs" (the same), or "heuristic"."""
    t0 = time.perf_counter()
    agg = aggregate(problem)
    columns = sum(len(c.options) for c in agg.classes) + sum(len(g.nodes) for g in agg.groups)
    sol = None
    note = ""
    if solver != "heuristic":
        if not solve_ip.available():
            note = " (HiGHS is not installed: pip install 'gputui[mig]')"
        elif columns > MAX_IP_COLUMNS:
            note = f" ({columns} columns: too large for the integer program)"
        else:
            sol = solve_ip.solve(agg, time_limit_s)
            if sol is None:
                note = f" (HiGHS proved no optimum within {time_limit_s:g} s)"
    if sol is not None:
        per_gpu = _realise(agg, sol)
        method, bound = sol.method, sol.bound
    else:
        per_gpu = solve_greedy.layouts_of(solve_greedy.greedy(agg))
        method, bound = "heuristic" + note, solve_greedy.upper_bound(agg)
    order = {g.key: k for k, g in enumerate(problem.gpus)}
    plans = tuple(sorted((finish(*e) for e in per_gpu), key=lambda gp: order[gp.gpu.key]))
    started_keys: dict[str, Demand] = {}
    for gp in plans:
        for _, d in gp.starts:
            started_keys[d.key] = d
    started = tuple(sorted(started_keys.values(), key=lambda d: d.rank))
    waiting = tuple(d for d in sorted(problem.demands, key=lambda d: d.rank) if d.key not in started_keys)
    s_compute = sum(profile_compute(s.profile) for gp in plans for s, _ in gp.starts)
    d_compute = sum(profile_compute(i.slot.profile) for gp in plans for i in gp.removed if i.busy)
    w = problem.drain_weight
    objective = s_compute - (w * d_compute if d_compute else 0.0)
    if bound is not None and sol is not None:
        bound = objective
    return Plan(plans, started, waiting, method, objective, bound, time.perf_counter() - t0, s_compute, d_compute)
