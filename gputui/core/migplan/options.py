"""Per GPU, the distinct outcomes of re-slicing it: which instances it then offers to waiting work, which running
work must drain first, and how many commands it takes. Layouts with the same offer and the same drains are one
option (the one with the fewest commands); an offer dominated by another with the same drains is dropped."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache

from gputui.core.mig_profiles import GpuModel
from gputui.core.migplan.layouts import Layout, Slot, maximal_layouts
from gputui.core.migplan.problem import Instance, PlanGpu, Work, profile_compute


@dataclass(frozen=True, slots=True)
class Option:
    """One way to leave a GPU: its layout, what it offers (profile -> free instances), what drains."""

    layout: Layout
    offer: tuple[tuple[str, int], ...]  # sorted (profile, count) of instances free for waiting work
    drained: tuple[Work, ...]
    drained_compute: int
    commands: int  # destroy commands (-dci, -dgi) it needs

    def offer_dict(self) -> dict[str, int]:
        return dict(self.offer)


def _dominates(a: tuple[tuple[str, int], ...], b: tuple[tuple[str, int], ...]) -> bool:
    da = dict(a)
    return all(da.get(p, 0) >= n for p, n in b)


@cache
def _options(model: GpuModel, instances: tuple[Instance, ...], plus_me: bool, fixed: bool) -> tuple[Option, ...]:
    kept_idle = [i for i in instances if not i.busy]
    if fixed:
        offer = Counter(i.slot.profile for i in kept_idle)
        return (Option(tuple(sorted(i.slot for i in instances)), tuple(sorted(offer.items())), (), 0, 0),)
    by_slot = {i.slot: i for i in instances}
    best: dict[tuple[str, ...], dict[tuple[tuple[str, int], ...], Option]] = {}
    # Every layout is reachable: the busy instances it leaves out drain. A layout that one more instance would fit
    # is never better than the larger one (which offers more, drains no more and removes no more), so only the
    # maximal layouts are options.
    for layout in maximal_layouts(model, plus_me):
        _add(layout, by_slot, best)
    out: list[Option] = []
    for per_drain in best.values():
        out.extend(per_drain.values())
    return tuple(sorted(out, key=lambda o: (o.drained_compute, o.commands, o.layout)))


def _add(layout: Layout, by_slot: dict[Slot, Instance], best: dict) -> None:
    inside = set(layout)
    drained: list[Work] = []
    removed = 0
    drained_compute = 0
    for s, inst in by_slot.items():
        if s not in inside:
            removed += 1
            if inst.busy:
                drained.extend(inst.holders)
                drained_compute += profile_compute(s.profile)
    offer = Counter(s.profile for s in layout if s not in by_slot or not by_slot[s].busy)
    # instances created for nobody are dropped once work is assigned, so only removals count here
    opt = Option(layout, tuple(sorted(offer.items())), tuple(drained), drained_compute, 2 * removed)
    dkey = tuple(sorted({w.key for w in drained}))
    per = best.setdefault(dkey, {})
    for other in list(per.values()):
        if _dominates(other.offer, opt.offer) and other.commands <= opt.commands:
            return
    for k, other in list(per.items()):
        if _dominates(opt.offer, other.offer) and opt.commands <= other.commands:
            del per[k]
    per[opt.offer] = opt


def options(gpu: PlanGpu, plus_me: bool = False) -> tuple[Option, ...]:
    """Every non-dominated option of ``gpu`` (the first keeps everything running and costs nothing)."""
    return _options(gpu.model, gpu.instances, plus_me, gpu.fixed)
