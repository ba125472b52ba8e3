"""MIG slot arithmetic on integer bitmasks: how many instances still fit, which slot to take, the capacity bound."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from gputui.core.mig_profiles import GpuModel, MigProfile, load_models, model_for


@cache
def _masks(profile: MigProfile) -> tuple[int, ...]:
    return tuple(((1 << size) - 1) << start for start, size in profile.placements)


@cache
def _pack(masks: tuple[int, ...], used: int) -> int:
    """Most placements of ``masks`` that fit together beside ``used`` (a tiny exact search; at most 8 slots)."""
    best = 0
    for i, m in enumerate(masks):
        if not m & used:
            best = max(best, 1 + _pack(masks[i + 1 :], used | m))
    return best


def placeable(model: GpuModel, profile: MigProfile, used_mask: int, compute_used: int, existing: int) -> int:
    """How many more instances of ``profile`` a GPU can take, by slots, compute slices and the instance limit."""
    by_slots = _pack(_masks(profile), used_mask)
    by_compute = (model.compute_slices - compute_used) // profile.compute_slices
    return max(0, min(by_slots, by_compute, profile.max_instances - existing))


@cache
def room(model: GpuModel, used_mask: int, compute_used: int) -> int:
    """The most compute slices further instances could still add beside ``used_mask`` and ``compute_used`` (an
    exact search over the placement table, cached; at most 8 slots)."""
    free = model.compute_slices - compute_used
    best = 0
    for p in model.profiles:
        if p.compute_slices > free or p.name.endswith("+me"):
            continue
        for m in _masks(p):
            if not m & used_mask:
                best = max(best, p.compute_slices + room(model, used_mask | m, compute_used + p.compute_slices))
                if best == free:
                    return best
    return best


def stranded(model: GpuModel, profile: MigProfile, start: int, used_mask: int, compute_used: int) -> int:
    """Compute slices that creating ``profile`` at ``start`` makes unreachable for good (3g at slot 0 of an empty
    A100 strands one: slots 4-7 then hold 3 slices at most, where 3g at slot 4 leaves room for a 4g)."""
    c = profile.compute_slices
    after = room(model, used_mask | profile.placement_mask(start), compute_used + c)
    return room(model, used_mask, compute_used) - after - c


def lean(profile: MigProfile, start: int) -> int:
    """How well ``start`` sits at the end of the GPU where ``profile`` belongs (higher is better): instances of 3
    compute slices or more and those with more memory than compute slices (3g, 1g.20gb) toward the last slots,
    where they strand nothing; the small ones toward the first, keeping the last half whole for a 3g."""
    size = dict(profile.placements).get(start, 1)
    return start if profile.compute_slices >= 3 or size > profile.compute_slices else -start


def free_starts(model: GpuModel, profile: MigProfile, used_mask: int, compute_used: int, existing: int) -> list[int]:
    """Start slots where one more instance of ``profile`` may be created now."""
    if compute_used + profile.compute_slices > model.compute_slices or existing >= profile.max_instances:
        return []
    return model.free_placements(profile, used_mask)


def openness(model: GpuModel, used_mask: int, compute_used: int) -> tuple[int, int]:
    """(compute slices of the largest profile still creatable, number of (profile, start) placements still open)."""
    largest = total = 0
    free_compute = model.compute_slices - compute_used
    for p in model.profiles:
        if p.compute_slices > free_compute:
            continue
        n = len(model.free_placements(p, used_mask))
        if n:
            total += n
            largest = max(largest, p.compute_slices)
    return largest, total


def best_start(model: GpuModel, profile: MigProfile, used_mask: int, compute_used: int, existing: int) -> int | None:
    """The free start slot that keeps the most future placements open (lowest slot on ties), or None."""
    best: tuple[tuple[int, int], int] | None = None
    for start in free_starts(model, profile, used_mask, compute_used, existing):
        after = openness(model, used_mask | profile.placement_mask(start), compute_used + profile.compute_slices)
        key = (after[1], after[0])
        if best is None or key > best[0]:
            best = (key, start)
    return None if best is None else best[1]


def resolve_model(text: str) -> GpuModel | None:
    """A MIG model from its key, an nvidia-smi product name, or a short form such as ``a100-80`` or ``h100``."""
    low = text.strip().lower()
    models = load_models()
    for m in models.values():
        if m.key.lower() == low or any(a.lower() == low for a in m.aliases):
            return m
    short = re.fullmatch(r"(?:nvidia[\s_-]*)?([a-z]+\d+)[\s_-]*(\d+)\s*(?:g|gb)?", low)
    if short:
        key = f"{short.group(1).upper()}-{short.group(2)}GB"
        if key in models:
            return models[key]
    return model_for(text)


def _nominal_gb(text: str) -> int | None:
    m = re.search(r"(\d+)\s*gb?$", text.lower())
    return int(m.group(1)) if m else None


# SM counts of the whole GPU outside MIG mode, where they differ from the MIG total in the table (vendor data sheets).
FULL_GPU_SMS = {"A100-40GB": 108, "A100-80GB": 108}


@dataclass(frozen=True, slots=True)
class CapacityReport:
    """How many instances of one profile fit on one GPU: the resource bound and the placement table's answer."""

    model: GpuModel
    profile: MigProfile
    sm_total: int | None  # SMs available to MIG instances
    full_gpu_sms: int | None  # SMs of the whole GPU outside MIG mode, where known and different
    sm_bound: int | None
    memory_gb_profile: int | None
    memory_gb_gpu: int | None
    memory_bound: int | None
    resource_bound: int | None
    placement_count: int  # by the placement table alone (non-overlapping slots)
    placement_starts: tuple[int, ...]
    answer: int  # placement table with the compute-slice and instance limits applied

    @property
    def disagreements(self) -> list[str]:
        """Each bound that differs from the placement table's answer, in words."""
        out = []
        if self.sm_bound is not None and self.sm_bound != self.answer:
            out.append(f"the SM bound allows {self.sm_bound}, the placement table {self.answer}")
        if self.memory_bound is not None and self.memory_bound != self.answer:
            out.append(f"the memory bound allows {self.memory_bound}, the placement table {self.answer}")
        if self.placement_count != self.answer:
            out.append(
                f"{self.placement_count} placements do not overlap, but at most {self.answer} may exist at once "
                f"(instance limit {self.profile.max_instances})"
            )
        return out


def capacity(model: GpuModel, profile: MigProfile) -> CapacityReport:
    """Instances of ``profile`` on an empty GPU of ``model``, by resources and by the placement table."""
    sm_total = model.sms_in_mig_mode
    if sm_total is None:
        sm_total = max((p.sm_count for p in model.profiles if p.sm_count is not None), default=None)
    sm_bound = sm_total // profile.sm_count if sm_total is not None and profile.sm_count else None
    mem_p = _nominal_gb(profile.name.removesuffix("+me"))
    mem_g = _nominal_gb(model.key)
    mem_bound = mem_g // mem_p if mem_p and mem_g else None
    bounds = [b for b in (sm_bound, mem_bound) if b is not None]
    masks = _masks(profile)
    starts: list[int] = []
    used = 0
    for (start, _size), m in zip(profile.placements, masks, strict=True):
        if not m & used and _pack(masks, used | m) == _pack(masks, used) - 1:
            starts.append(start)
            used |= m
    full = FULL_GPU_SMS.get(model.key)
    return CapacityReport(
        model=model,
        profile=profile,
        sm_total=sm_total,
        full_gpu_sms=full if full != sm_total else None,
        sm_bound=sm_bound,
        memory_gb_profile=mem_p,
        memory_gb_gpu=mem_g,
        memory_bound=mem_bound,
        resource_bound=min(bounds) if bounds else None,
        placement_count=_pack(masks, 0),
        placement_starts=tuple(starts),
        answer=placeable(model, profile, 0, 0, 0),
    )
