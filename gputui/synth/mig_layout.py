"""MIG layouts built from the real profile tables: legal placements, driver-like ids, compute-instance splits."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from gputui.core.errors import GputuiError
from gputui.core.mig_profiles import GpuModel, MigProfile
from gputui.core.model import ComputeInstance, GpuInstance


class MigLayoutError(GputuiError, ValueError):
    """A MIG layout that the GPU's profile table does not allow."""


# GI ids the driver tends to hand out per GI size (compute slices): observed on A100 and H100, e.g. 3g -> 1, 2;
# 1g -> 7..14. Only a habit: the same placement has been seen with different ids, so none is derived from it.
_DRIVER_GI_IDS: dict[int, tuple[int, ...]] = {
    7: (0,),
    4: (1,),
    3: (1, 2),
    2: (3, 4, 5, 6),
    1: tuple(range(7, 15)),
}

#: A compute-instance profile name such as '1c.3g.40gb'.
CI_PROFILE_NAME = re.compile(r"\d+c\.\d+g\.", re.IGNORECASE)

#: A layout entry: a profile name (one full compute instance), or a name and the compute slices of each CI.
LayoutItem = str | tuple[str, Sequence[int]]


def _profiles(model: GpuModel, names: Sequence[str]) -> list[MigProfile]:
    out = []
    for name in names:
        if CI_PROFILE_NAME.search(name):  # the table's lookup would quietly read '1c.3g.40gb' as '3g.40gb'
            raise MigLayoutError(f"'{name}' is a compute-instance profile; a layout names GPU-instance profiles")
        p = model.profile(name)
        if p is None:
            known = ", ".join(q.name for q in model.profiles)
            raise MigLayoutError(f"{model.key} has no MIG profile '{name}' (it has {known})")
        out.append(p)
    return out


def place(model: GpuModel, names: Sequence[str]) -> list[tuple[MigProfile, int]]:
    """Choose a legal start slot for each profile named, in the order given, or raise MigLayoutError.

    Larger instances are placed first, each at its highest free start, which is what the driver does
    when ``nvidia-smi mig -cgi`` is given no placement; a backtracking search finds a fit if one exists.
    """
    profiles = _profiles(model, names)
    for name, n in Counter(p.name for p in profiles).items():
        p = model.profile(name)
        assert p is not None
        if n > p.max_instances:
            raise MigLayoutError(f"{model.key} allows at most {p.max_instances} x {name}, the layout asks for {n}")
    compute = sum(p.compute_slices for p in profiles)
    if compute > model.compute_slices:
        wanted = " + ".join(p.name for p in profiles)
        raise MigLayoutError(f"{wanted} needs {compute} compute slices; {model.key} has {model.compute_slices}")
    order = sorted(range(len(profiles)), key=lambda i: (-profiles[i].memory_slices, -profiles[i].compute_slices, i))
    starts: dict[int, int] = {}

    def search(k: int, used: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        p = profiles[i]
        for start in sorted(model.free_placements(p, used), reverse=True):
            starts[i] = start
            if search(k + 1, used | p.placement_mask(start)):
                return True
        return False

    if not search(0, 0):
        raise MigLayoutError(
            f"{' + '.join(p.name for p in profiles)} does not fit on {model.key}: "
            "no choice of the table's placements keeps their memory slots apart"
        )
    return [(p, starts[i]) for i, p in enumerate(profiles)]


def driver_gi_ids(profiles: Sequence[MigProfile]) -> list[int]:
    """GI ids for instances created in this order, picked the way the driver usually picks them."""
    taken: set[int] = set()
    out = []
    for p in profiles:
        pool = [i for i in _DRIVER_GI_IDS.get(p.compute_slices, ()) if i not in taken]
        gi_id = pool[0] if pool else next(i for i in range(1, 64) if i not in taken)
        taken.add(gi_id)
        out.append(gi_id)
    return out


def ci_profile_name(gi_profile: MigProfile, compute_slices: int) -> str:
    """'3g.40gb' for a CI that takes the whole GI, '1c.3g.40gb' for one that takes part of it."""
    if compute_slices == gi_profile.compute_slices:
        return gi_profile.name
    return f"{compute_slices}c.{gi_profile.name}"


def ci_sm_count(model: GpuModel, gi_profile: MigProfile, compute_slices: int) -> int | None:
    """SMs of a compute instance of ``compute_slices`` slices inside ``gi_profile``, from the GI table.

    A whole-GI CI has the GI's SMs; a partial one has the SMs of the smallest GI of that many slices
    (on H100 a 1c CI has the 16 SMs of a 1g.10gb, a 2c CI the 32 of a 2g.20gb).
    """
    if compute_slices == gi_profile.compute_slices:
        return gi_profile.sm_count
    same = [p for p in model.profiles if p.compute_slices == compute_slices and not p.name.endswith("+me")]
    if not same:
        return None
    return min(same, key=lambda p: p.memory_slices).sm_count


def build_gpu_instances(
    model: GpuModel,
    layout: Sequence[LayoutItem],
    mig_uuid_for: Callable[[int, int], str],
    gi_ids: Sequence[int] | None = None,
) -> tuple[GpuInstance, ...]:
    """GPU instances (with their CIs, SMs, memory and MIG UUIDs) for a layout, placed by :func:`place`.

    ``mig_uuid_for(gi_id, ci_id)`` names each CI's MIG device. Memory used starts at None; the
    timeline fills it in every frame.
    """
    names = [item if isinstance(item, str) else item[0] for item in layout]
    placed = place(model, names)
    ids = list(gi_ids) if gi_ids is not None else driver_gi_ids([p for p, _ in placed])
    if len(ids) != len(placed) or len(set(ids)) != len(ids):
        raise MigLayoutError(f"GI ids {ids} do not name the {len(placed)} instances of the layout one each")
    instances = []
    for item, (profile, start), gi_id in zip(layout, placed, ids, strict=True):
        splits = [profile.compute_slices] if isinstance(item, str) else list(item[1])
        if not splits or any(c < 1 for c in splits) or sum(splits) > profile.compute_slices:
            raise MigLayoutError(
                f"compute instances of {splits} slices do not fit in {profile.name} ({profile.compute_slices} slices)"
            )
        sms = [ci_sm_count(model, profile, c) for c in splits]
        if profile.sm_count is not None and None not in sms and sum(s or 0 for s in sms) > profile.sm_count:
            raise MigLayoutError(f"compute instances of {sms} SMs exceed the {profile.sm_count} SMs of {profile.name}")
        cis = tuple(
            ComputeInstance(
                ci_id=ci_id, profile=ci_profile_name(profile, c), sm_count=sm, mig_uuid=mig_uuid_for(gi_id, ci_id)
            )
            for ci_id, (c, sm) in enumerate(zip(splits, sms, strict=True))
        )
        size = dict(profile.placements)[start]
        instances.append(
            GpuInstance(
                gi_id=gi_id,
                profile=profile.name,
                profile_id=profile.gi_profile_id,
                placement_start=start,
                placement_size=size,
                memory_total_mib=profile.memory_mib_estimate,
                sm_count=profile.sm_count,
                compute_instances=cis,
            )
        )
    return _number_devices(instances)


def _number_devices(instances: list[GpuInstance]) -> tuple[GpuInstance, ...]:
    """Sort GIs by id and give every CI its 'MIG Dev' index in that order, as nvidia-smi lists them."""
    out = []
    dev = 0
    for gi in sorted(instances, key=lambda g: g.gi_id if g.gi_id is not None else -1):
        cis = []
        for ci in gi.compute_instances:
            cis.append(replace(ci, mig_device_index=dev))
            dev += 1
        out.append(replace(gi, compute_instances=tuple(cis)))
    return tuple(out)
