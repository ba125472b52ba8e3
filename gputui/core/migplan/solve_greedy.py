"""The plan without a solver (or when the problem is large): largest work first into the slot that strands the
fewest compute slices on the fullest GPU, then GPU by GPU a better option where one starts more of what still
waits; with an upper bound to say how far from the optimum it may be."""

from __future__ import annotations

from dataclasses import dataclass, field

from gputui.core.mig_profiles import GpuModel
from gputui.core.migplan.aggregate import Aggregate, DemandGroup
from gputui.core.migplan.layouts import Layout, Slot, all_slots, room
from gputui.core.migplan.options import Option
from gputui.core.migplan.problem import Demand, PlanGpu, profile_compute


@dataclass
class GpuDraft:
    gpu: PlanGpu
    options: tuple[Option, ...]
    layout: list[Slot]
    free: list[Slot]  # slots of the layout free for waiting work
    given: dict[Slot, Demand] = field(default_factory=dict)
    option: Option | None = None  # the option taken in the second phase, if any
    locked: bool = False  # holds part of a job that needs several instances

    @property
    def model(self) -> GpuModel:
        return self.gpu.model

    def used(self) -> tuple[int, int]:
        mask = compute = 0
        for s in self.layout:
            mask |= s.mask
            compute += profile_compute(s.profile)
        return mask, compute


def _new_slots(d: GpuDraft, profile: str) -> list[tuple[tuple, Slot]]:
    """Where a new instance of ``profile`` could go on ``d``, each with its key (lower is better)."""
    p = d.model.profile(profile)
    if p is None or d.gpu.fixed:
        return []
    mask, compute = d.used()
    if compute + p.compute_slices > d.model.compute_slices:
        return []
    if sum(1 for s in d.layout if s.profile == p.name) >= p.max_instances:
        return []
    before = room(d.model, mask, compute)
    out = []
    for s in all_slots(d.model):
        if s.profile != p.name or s.mask & mask:
            continue
        after = room(d.model, mask | s.mask, compute + p.compute_slices)
        stranded = before - after - p.compute_slices
        out.append(((stranded, after, s.start), s))
    return out


def _place_on_node(drafts: list[GpuDraft], needs: tuple[tuple[str, int], ...]) -> list[tuple[GpuDraft, Slot]] | None:
    """A tentative placement of every instance ``needs`` asks for on one node's GPUs, or None."""
    taken: list[tuple[GpuDraft, Slot]] = []
    ok = True
    for profile, count in sorted(needs, key=lambda pc: -profile_compute(pc[0])):
        for _ in range(count):
            pick: tuple[tuple, GpuDraft, Slot] | None = None
            for d in drafts:
                for s in d.free:
                    if s.profile == profile and s not in d.given:
                        pick = ((-1,), d, s)
                        break
                if pick:
                    break
            if pick is None:
                for d in drafts:
                    for key, s in _new_slots(d, profile):
                        if pick is None or key < pick[0]:
                            pick = (key, d, s)
            if pick is None:
                ok = False
                break
            _, d, s = pick
            if s not in d.free:
                d.layout.append(s)
                d.free.append(s)
            d.given[s] = Demand("?", "?", ())  # reserved while this job's other instances are placed
            taken.append((d, s))
        if not ok:
            break
    if not ok:
        for d, s in taken:
            del d.given[s]
    return taken if ok else None


def greedy(agg: Aggregate) -> list[GpuDraft]:
    drafts: list[GpuDraft] = []
    by_node: dict[str, list[GpuDraft]] = {}
    for c in agg.classes:
        for g in c.gpus:
            d = GpuDraft(g, c.options, [i.slot for i in g.instances], [i.slot for i in g.instances if not i.busy])
            drafts.append(d)
            by_node.setdefault(g.node, []).append(d)
    items = [(grp, m) for grp in agg.groups for m in grp.members]
    items.sort(key=lambda gm: (-gm[0].compute, gm[1].rank))
    for grp, member in items:
        best: tuple[tuple, str] | None = None
        for n in grp.nodes:
            trial = _place_on_node(by_node[n], grp.needs)
            if trial is None:
                continue
            # undo and score: the node whose GPUs end fullest (best fit)
            free_after = sum(d.model.compute_slices - d.used()[1] for d in by_node[n])
            for d, s in trial:
                del d.given[s]
            _prune(by_node[n])
            key = (free_after, agg.nodes.index(n))
            if best is None or key < best[0]:
                best = (key, n)
        if best is None:
            continue
        placed = _place_on_node(by_node[best[1]], grp.needs)
        assert placed is not None
        for d, s in placed:
            d.given[s] = member
            if len({id(x) for x, _ in placed}) > 1 or sum(k for _, k in grp.needs) > 1:
                d.locked = True
    _prune_all(drafts)
    improve(agg, drafts, by_node)
    return drafts


def _prune(drafts: list[GpuDraft]) -> None:
    """Drop instances created on trial that nobody was given."""
    for d in drafts:
        existing = {i.slot for i in d.gpu.instances}
        d.layout = [s for s in d.layout if s in existing or s in d.given]
        d.free = [s for s in d.free if s in existing or s in d.given]


def _prune_all(drafts: list[GpuDraft]) -> None:
    _prune(drafts)


def improve(agg: Aggregate, drafts: list[GpuDraft], by_node: dict[str, list[GpuDraft]]) -> None:
    """GPU by GPU, the option that starts the most single-instance work still waiting (net of drains)."""
    singles = [grp for grp in agg.groups if sum(k for _, k in grp.needs) == 1]
    started = {id(m) for d in drafts for m in d.given.values()}
    for _ in range(4):
        changed = False
        for d in drafts:
            if d.locked or d.gpu.fixed:
                continue
            mine = {id(m) for m in d.given.values()}
            pool: dict[str, list[Demand]] = {}
            for grp in singles:
                if d.gpu.node not in grp.nodes:
                    continue
                p = grp.needs[0][0]
                pool.setdefault(p, []).extend(m for m in grp.members if id(m) not in started or id(m) in mine)
            for lst in pool.values():
                lst.sort(key=lambda m: m.rank)
            current = _value(d.option, d, pool, agg.drain_weight)
            best: tuple[float, Option] | None = None
            for o in d.options:
                v = _value(o, d, pool, agg.drain_weight)
                if best is None or v > best[0] + 1e-9:
                    best = (v, o)
            if best is None or best[0] <= current + 1e-9:
                continue
            o = best[1]
            started -= mine
            d.option = o
            d.layout = list(o.layout)
            busy = {i.slot for i in d.gpu.instances if i.busy}
            d.free = [s for s in o.layout if s not in busy]
            d.given = {}
            for p, k in o.offer:
                slots = [s for s in d.free if s.profile == p]
                for s, m in zip(slots, pool.get(p, [])[:k], strict=False):
                    d.given[s] = m
                    started.add(id(m))
            _prune([d])
            changed = True
        if not changed:
            break


def _value(o: Option | None, d: GpuDraft, pool: dict[str, list[Demand]], w: float) -> float:
    if o is None:  # the first phase's result: what it gave, no drains
        return float(sum(profile_compute(s.profile) for s in d.given))
    got = sum(min(k, len(pool.get(p, []))) * profile_compute(p) for p, k in o.offer)
    return got - (w * o.drained_compute if o.drained_compute else 0.0)


def upper_bound(agg: Aggregate) -> float:
    """A bound on compute slices started net of drains (valid for drain weights of 1 and more): what fits by the
    compute slices and, separately, by the memory slots of every GPU, counting the work running now as waiting,
    less the work running now."""
    running = 0
    items: list[tuple[int, int, int]] = []  # (compute, memory slots, count)
    total_compute = total_slots = 0
    for c in agg.classes:
        for g in c.gpus:
            total_compute += g.model.compute_slices
            total_slots += g.model.memory_slices
            for i in g.instances:
                if i.busy or g.fixed:
                    running += profile_compute(i.slot.profile) if i.busy else 0
                    items.append((profile_compute(i.slot.profile), i.slot.size, 1))
    for grp in agg.groups:
        mem = 0
        for p, k in grp.needs:
            mem += k * _min_size(agg, p)
        items.append((grp.compute, mem, len(grp.members)))
    by_compute = min(total_compute, sum(comp * n for comp, _, n in items))
    left = float(total_slots)
    by_memory = 0.0
    for comp, m, n in sorted(items, key=lambda x: -(x[0] / x[1]) if x[1] else 0):
        take = min(float(n), left / m) if m else float(n)
        by_memory += take * comp
        left -= take * m
        if left <= 0:
            break
    return min(by_compute, by_memory) - running


def _min_size(agg: Aggregate, profile: str) -> int:
    sizes = [
        size for c in agg.classes for g in c.gpus[:1] if (p := g.model.profile(profile)) for _, size in p.placements
    ]
    return min(sizes) if sizes else 1


def layouts_of(drafts: list[GpuDraft]) -> list[tuple[PlanGpu, Layout, dict[Slot, Demand]]]:
    return [(d.gpu, tuple(sorted(d.layout)), dict(d.given)) for d in drafts]


__all__ = ["DemandGroup", "GpuDraft", "greedy", "layouts_of", "upper_bound"]
