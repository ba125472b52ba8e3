"""Every valid MIG layout of one GPU, enumerated from its model's placement table.

A layout is a set of GPU instances, each a profile at a start slot; it is valid when no two overlap in memory
slots, the compute slices fit the GPU, and no profile exceeds its instance limit. On a 7-slice GPU there are a few
thousand (most not maximal), so they are enumerated once per model and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from gputui.core.mig_profiles import GpuModel, MigProfile


@dataclass(frozen=True, slots=True, order=True)
class Slot:
    """One GPU instance of a layout: a profile placed at a start slot."""

    start: int
    size: int
    profile: str  # the profile's name, "3g.40gb"

    @property
    def mask(self) -> int:
        return ((1 << self.size) - 1) << self.start

    @property
    def end(self) -> int:
        return self.start + self.size - 1


Layout = tuple[Slot, ...]  # sorted by start


def slot(model: GpuModel, profile: str, start: int) -> Slot:
    """The slot of ``profile`` at ``start``; ValueError when the placement table does not allow it."""
    p = model.profile(profile)
    if p is None:
        raise ValueError(f"{model.key} has no profile {profile!r}")
    sizes = dict(p.placements)
    if start not in sizes:
        raise ValueError(f"{p.name} cannot start at slot {start} on {model.key}")
    return Slot(start, sizes[start], p.name)


def compute_of(model: GpuModel, layout: tuple[Slot, ...]) -> int:
    total = 0
    for s in layout:
        p = model.profile(s.profile)
        total += p.compute_slices if p else 0
    return total


def why_invalid(model: GpuModel, layout: tuple[Slot, ...]) -> str | None:
    """The first rule of the placement table that ``layout`` breaks, in words; None when it is valid."""
    used = 0
    compute = 0
    counts: dict[str, int] = {}
    for s in layout:
        p = model.profile(s.profile)
        if p is None:
            return f"{model.key} has no profile {s.profile!r}"
        if dict(p.placements).get(s.start) != s.size:
            return f"{p.name} cannot start at slot {s.start} (size {s.size}) on {model.key}"
        if s.mask & used:
            return f"{p.name} at slot {s.start} overlaps another instance"
        used |= s.mask
        compute += p.compute_slices
        counts[p.name] = counts.get(p.name, 0) + 1
        if counts[p.name] > p.max_instances:
            return f"more than {p.max_instances} instance(s) of {p.name}"
    if compute > model.compute_slices:
        return f"{compute} compute slices, {model.key} has {model.compute_slices}"
    return None


@cache
def all_slots(model: GpuModel) -> tuple[Slot, ...]:
    """Every (profile, start) the placement table allows, by start then size."""
    out = [Slot(start, size, p.name) for p in model.profiles for start, size in p.placements]
    return tuple(sorted(out))


def _profiles(model: GpuModel) -> dict[str, MigProfile]:
    return {p.name: p for p in model.profiles}


def extensions(model: GpuModel, base: tuple[Slot, ...] = (), plus_me: bool = True) -> list[Layout]:
    """Every valid layout that contains ``base`` (itself included), ``base`` assumed valid.

    ``plus_me``: whether the media-extension profiles (``+me``) may be added.
    """
    profiles = _profiles(model)
    cands = [s for s in all_slots(model) if plus_me or not s.profile.endswith("+me")]
    used0 = 0
    compute0 = 0
    counts0: dict[str, int] = {}
    for s in base:
        used0 |= s.mask
        compute0 += profiles[s.profile].compute_slices
        counts0[s.profile] = counts0.get(s.profile, 0) + 1
    out: list[Layout] = []
    chosen: list[Slot] = list(base)

    def walk(i: int, used: int, compute: int, counts: dict[str, int]) -> None:
        out.append(tuple(sorted(chosen)))
        for j in range(i, len(cands)):
            s = cands[j]
            p = profiles[s.profile]
            if s.mask & used or compute + p.compute_slices > model.compute_slices:
                continue
            if counts.get(s.profile, 0) >= p.max_instances:
                continue
            chosen.append(s)
            counts[s.profile] = counts.get(s.profile, 0) + 1
            walk(j + 1, used | s.mask, compute + p.compute_slices, counts)
            counts[s.profile] -= 1
            chosen.pop()

    walk(0, used0, compute0, dict(counts0))
    return out


@cache
def all_layouts(model: GpuModel, plus_me: bool = False) -> tuple[Layout, ...]:
    """Every valid layout of an empty GPU of ``model`` (the empty one included)."""
    return tuple(extensions(model, (), plus_me))


def is_maximal(model: GpuModel, layout: tuple[Slot, ...], plus_me: bool = False) -> bool:
    """Whether no further instance could be added to ``layout``."""
    profiles = _profiles(model)
    used = compute = 0
    counts: dict[str, int] = {}
    for s in layout:
        used |= s.mask
        compute += profiles[s.profile].compute_slices
        counts[s.profile] = counts.get(s.profile, 0) + 1
    for s in all_slots(model):
        p = profiles[s.profile]
        if (
            (plus_me or not s.profile.endswith("+me"))
            and not s.mask & used
            and compute + p.compute_slices <= model.compute_slices
            and counts.get(s.profile, 0) < p.max_instances
        ):
            return False
    return True


@cache
def maximal_layouts(model: GpuModel, plus_me: bool = False) -> tuple[Layout, ...]:
    """The layouts to which no instance can be added (78 on a 7-slice GPU without the ``+me`` profiles)."""
    return tuple(lay for lay in all_layouts(model, plus_me) if is_maximal(model, lay, plus_me))


def room(model: GpuModel, used: int, compute: int) -> int:
    """The most compute slices further instances could still add (the scheduler's own slot arithmetic)."""
    from gputui.core.scheduler.mig import room as _room

    return _room(model, used, compute)
