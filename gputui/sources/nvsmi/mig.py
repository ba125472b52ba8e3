"""MIG devices of a log grouped into GPU instances, with profiles named from `-L` or inferred from the tables.

`nvidia-smi -q` lists one entry per compute instance (its GI id, CI id, SMs and the GI's shared
memory) but no profile names; `nvidia-smi -L` names them. Without `-L`, the GI profile is inferred from
memory and SMs (a GI split into CIs: from the sum of its CIs' compute slices and its memory), and left
None where two profiles would fit equally well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gputui.core.mig_profiles import GpuModel, MigProfile, infer_profile, model_for, normalise_profile_name
from gputui.core.model import ComputeInstance, GpuInstance

_CI_PREFIX = re.compile(r"^(\d+)c\.(.+)$")
_MEMORY_TOLERANCE = 0.12  # as in infer_profile


@dataclass(frozen=True, slots=True)
class MigDevice:
    """One `MIG Device` entry of a log: a compute instance and the memory of its GPU instance."""

    index: int | None
    gi_id: int | None
    ci_id: int | None
    sm_count: int | None
    memory_total_mib: int | None
    memory_used_mib: int | None


@dataclass(frozen=True, slots=True)
class ListedMig:
    """A MIG device as `nvidia-smi -L` names it: 'MIG 1c.3g.40gb Device 0: (UUID: MIG-...)'."""

    profile: str  # the compute-instance profile as printed ('3g.40gb', '1c.3g.40gb')
    uuid: str | None


def gpu_instances(
    devices: list[MigDevice], product_name: str | None, listed: dict[int, ListedMig] | None = None
) -> tuple[GpuInstance, ...]:
    """Group MIG devices by GI id (in order of first appearance) into GpuInstance objects."""
    listed = listed or {}
    groups: dict[object, list[MigDevice]] = {}
    for n, d in enumerate(devices):
        groups.setdefault(d.gi_id if d.gi_id is not None else ("no-gi", n), []).append(d)
    model = model_for(product_name)
    return tuple(_gpu_instance(members, model, listed) for members in groups.values())


def _gpu_instance(members: list[MigDevice], model: GpuModel | None, listed: dict[int, ListedMig]) -> GpuInstance:
    first = members[0]
    names = [m.profile for d in members if (m := _listed(listed, d))]
    profile: MigProfile | None
    if names:
        gi_name: str | None = _gi_name_of(names[0])
        profile = model.profile(gi_name) if model and gi_name else None
    else:
        sms = [d.sm_count for d in members]
        sm_sum = sum(s for s in sms if s is not None) if all(s is not None for s in sms) else None
        profile = None
        if model is not None:
            profile = _from_compute_instances(model, first.memory_total_mib, sms) or _inferred(
                model, first.memory_total_mib, sm_sum
            )
        gi_name = profile.name if profile else None
    gi_sm = profile.sm_count if profile else None
    for d in members:
        m = _listed(listed, d)
        if d.sm_count is not None and m is not None and m.profile == gi_name:
            gi_sm = d.sm_count  # a CI spanning the whole GI shows its real SM count
    cis = tuple(
        ComputeInstance(
            ci_id=d.ci_id,
            profile=_ci_profile(d, _listed(listed, d), gi_name, gi_sm, profile, model),
            sm_count=d.sm_count,
            mig_uuid=m.uuid if (m := _listed(listed, d)) else None,
            mig_device_index=d.index,
        )
        for d in members
    )
    one_place = profile is not None and len(profile.placements) == 1
    return GpuInstance(
        gi_id=first.gi_id,
        profile=gi_name,
        profile_id=profile.gi_profile_id if profile else None,
        placement_start=profile.placements[0][0] if one_place and profile else None,
        placement_size=profile.placements[0][1] if one_place and profile else None,
        memory_total_mib=first.memory_total_mib,
        memory_used_mib=first.memory_used_mib,
        sm_count=gi_sm,
        compute_instances=cis,
    )


def _listed(listed: dict[int, ListedMig], d: MigDevice) -> ListedMig | None:
    return listed.get(d.index) if d.index is not None else None


def _gi_name_of(ci_profile: str) -> str:
    m = _CI_PREFIX.match(ci_profile)
    return normalise_profile_name(m.group(2) if m else ci_profile)


def _from_compute_instances(model: GpuModel, memory_mib: int | None, sms: list[int | None]) -> MigProfile | None:
    """The GI profile whose compute slices are the sum of its CIs' (each CI's SMs tell its slices) and whose
    memory is the GI's: a 3g split into 1c + 2c has 16 + 32 SMs, which no profile has, but 3 slices."""
    slices = [_slices_of(model, sm) for sm in sms]
    if memory_mib is None or any(n is None for n in slices):
        return None
    total = sum(n for n in slices if n is not None)
    near = [p for p in _near(model, memory_mib) if p.compute_slices == total]
    return near[0] if len(near) == 1 else None


def _slices_of(model: GpuModel, sm_count: int | None) -> int | None:
    """The compute slices of a CI with this many SMs: those of the GI profiles with the same SM count."""
    found = {p.compute_slices for p in model.profiles if sm_count is not None and p.sm_count == sm_count}
    return found.pop() if len(found) == 1 else None


def _near(model: GpuModel, memory_mib: int) -> list[MigProfile]:
    return [
        p
        for p in model.profiles
        if not p.name.endswith("+me")
        and p.memory_mib_estimate is not None
        and abs(p.memory_mib_estimate - memory_mib) / p.memory_mib_estimate <= _MEMORY_TOLERANCE
    ]


def _inferred(model: GpuModel, memory_mib: int | None, sm_sum: int | None) -> MigProfile | None:
    """The table profile for a GI, or None when memory and SMs do not single one out."""
    guess = infer_profile(model, memory_mib, sm_sum)
    if guess is None or memory_mib is None:
        return None
    near = _near(model, memory_mib)
    if len(near) > 1 and (sm_sum is None or guess.sm_count != sm_sum):
        return None
    return guess


def _ci_profile(
    d: MigDevice,
    listed: ListedMig | None,
    gi_name: str | None,
    gi_sm: int | None,
    profile: MigProfile | None,
    model: GpuModel | None,
) -> str | None:
    if listed is not None:
        return listed.profile
    if gi_name is None or d.sm_count is None:
        return None
    if gi_sm is not None and d.sm_count == gi_sm:
        return gi_name
    if model is None or profile is None:
        return None
    # a CI of n compute slices has the SMs of the n-slice GI profiles
    slices = {p.compute_slices for p in model.profiles if p.sm_count == d.sm_count}
    if len(slices) == 1:
        n = slices.pop()
        if n < profile.compute_slices:
            return f"{n}c.{gi_name}"
    return None
