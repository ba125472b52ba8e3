"""What a MIG GPU still has room for, by the scheduler's own arithmetic (gputui.core.scheduler.mig): free memory
and compute slices, the largest profile still creatable, the open (profile, start) placements, fragmentation."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gputui.core.mig_profiles import GpuModel, MigProfile, infer_profile, model_for
from gputui.core.model import GpuInstance, GpuSnapshot
from gputui.core.scheduler.mig import openness, placeable


@dataclass(frozen=True, slots=True)
class MigRoom:
    free_memory_slices: int
    free_compute_slices: int
    largest: MigProfile | None  # the largest profile one more instance of which can be created now
    open_placements: int  # (profile, start) pairs still open: the fragmentation policy's second key

    @property
    def fragmentation(self) -> float | None:
        """1 - (compute slices of the largest creatable profile / free compute slices): 0 when the free compute
        can all go to one instance, towards 1 as it is split into unusable pieces; None when nothing is free."""
        if self.free_compute_slices <= 0:
            return None
        largest = self.largest.compute_slices if self.largest is not None else 0
        return 1.0 - largest / self.free_compute_slices


def _profile(model: GpuModel, gi: GpuInstance) -> MigProfile | None:
    p = model.profile(gi.profile) if gi.profile else None
    if p is None and gi.profile_id is not None:
        p = model.profile_by_id(gi.profile_id)
    if p is None:
        p = infer_profile(model, gi.memory_total_mib, gi.sm_count)
    return p


def mig_room(gpu: GpuSnapshot) -> MigRoom | None:
    """The room left on a MIG GPU; None when MIG is off, the model's table is unknown, or an instance's
    placement cannot be told (then what is free is not known either)."""
    if not gpu.mig_enabled or gpu.lost:
        return None
    # Layouts change rarely and memory in use does not matter here: one answer per layout.
    layout = tuple(
        (gi.profile, gi.profile_id, gi.placement_start, gi.placement_size, gi.memory_total_mib, gi.sm_count)
        for gi in gpu.gpu_instances
    )
    return _room(gpu.name, layout)


Layout = tuple[tuple[str | None, int | None, int | None, int | None, int | None, int | None], ...]


@lru_cache(maxsize=4096)
def _room(name: str | None, layout: Layout) -> MigRoom | None:
    model = model_for(name)
    if model is None:
        return None
    used = compute = 0
    counts: dict[str, int] = {}
    for profile, profile_id, start, size, memory, sms in layout:
        gi = GpuInstance(0, profile, profile_id, start, size, memory, None, sms)
        p = _profile(model, gi)
        if p is None:
            return None
        start, size = gi.placement_start, gi.placement_size
        if start is None and len(p.placements) == 1:
            start, size = p.placements[0]
        if start is None:
            return None
        size = p.memory_slices if size is None else size
        used |= ((1 << size) - 1) << start
        compute += p.compute_slices
        counts[p.name] = counts.get(p.name, 0) + 1
    largest: MigProfile | None = None
    for p in model.profiles:
        if placeable(model, p, used, compute, counts.get(p.name, 0)) <= 0:
            continue
        if largest is None or (p.compute_slices, p.memory_slices) > (largest.compute_slices, largest.memory_slices):
            largest = p
    return MigRoom(
        free_memory_slices=model.memory_slices - used.bit_count(),
        free_compute_slices=model.compute_slices - compute,
        largest=largest,
        open_placements=openness(model, used, compute)[1],
    )
