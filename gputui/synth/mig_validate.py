"""Check a GPU snapshot's MIG instances against the profile table of its GPU model."""

from __future__ import annotations

import re
from collections import Counter

from gputui.core.mig_profiles import GpuModel, model_for
from gputui.core.model import GpuInstance, GpuSnapshot
from gputui.synth.mig_layout import CI_PROFILE_NAME, ci_sm_count

_MIG_UUID = re.compile(r"^MIG-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_CI_PROFILE = re.compile(r"^(?:(\d+)c\.)?(.+)$")


def validate_gpu_layout(gpu: GpuSnapshot) -> list[str]:
    """Every way the GPU's MIG instances break its model's table; an empty list when the layout is legal.

    Checks profiles, placements and overlaps, instance counts, GI memory and SMs, CI slices and SMs
    within their GI, MIG UUIDs, and that every process runs in a GI / CI that exists.
    """
    where = f"GPU {gpu.index}"
    if not gpu.mig_mode_current:
        off = [f"{where}: {len(gpu.gpu_instances)} GPU instances while MIG mode is off"] if gpu.gpu_instances else []
        return off + [
            f"{where}: process {p.pid} names GI {p.gi_id} / CI {p.ci_id} on a GPU without MIG"
            for p in gpu.processes
            if p.gi_id is not None or p.ci_id is not None
        ]
    model = model_for(gpu.name)
    if model is None:
        return [f"{where}: no MIG table for '{gpu.name}'"]
    problems: list[str] = []
    used = 0
    compute = 0
    counts: Counter[str] = Counter()
    gi_ids: set[int] = set()
    uuids: list[str] = []
    for gi in gpu.gpu_instances:
        at = f"{where} GI {gi.gi_id}"
        if gi.gi_id is None:
            problems.append(f"{at}: no GI id")
        elif gi.gi_id in gi_ids:
            problems.append(f"{at}: GI id used twice")
        else:
            gi_ids.add(gi.gi_id)
        # the table's name lookup drops a '1c.' prefix, so a CI profile must be refused here
        profile = model.profile(gi.profile) if gi.profile and not CI_PROFILE_NAME.search(gi.profile) else None
        if profile is None:
            problems.append(f"{at}: {model.key} has no profile '{gi.profile}'")
            continue
        counts[profile.name] += 1
        compute += profile.compute_slices
        if gi.profile_id is not None and gi.profile_id != profile.gi_profile_id:
            problems.append(
                f"{at}: profile id {gi.profile_id}, the table says {profile.gi_profile_id} for {profile.name}"
            )
        sizes = dict(profile.placements)
        if gi.placement_start not in sizes:
            problems.append(f"{at}: {profile.name} cannot start at slot {gi.placement_start}")
        else:
            if gi.placement_size is not None and gi.placement_size != sizes[gi.placement_start]:
                problems.append(f"{at}: placement size {gi.placement_size}, the table says {sizes[gi.placement_start]}")
            mask = profile.placement_mask(gi.placement_start)
            if mask & used:
                problems.append(f"{at}: {profile.name} at slot {gi.placement_start} overlaps another instance")
            used |= mask
        if gi.memory_total_mib != profile.memory_mib_estimate:
            problems.append(f"{at}: memory {gi.memory_total_mib} MiB, the table says {profile.memory_mib_estimate}")
        if gi.sm_count != profile.sm_count:
            problems.append(f"{at}: {gi.sm_count} SMs, the table says {profile.sm_count}")
        if (
            gi.memory_used_mib is not None
            and gi.memory_total_mib is not None
            and gi.memory_used_mib > gi.memory_total_mib
        ):
            problems.append(f"{at}: {gi.memory_used_mib} MiB used of {gi.memory_total_mib}")
        problems += _check_cis(model, gi, at)
        uuids += [ci.mig_uuid for ci in gi.compute_instances if ci.mig_uuid is not None]
    for name, n in counts.items():
        p = model.profile(name)
        if p is not None and n > p.max_instances:
            problems.append(f"{where}: {n} x {name}, the table allows {p.max_instances}")
    if compute > model.compute_slices:
        problems.append(f"{where}: GIs take {compute} compute slices of {model.compute_slices}")
    problems += [f"{where}: MIG UUID {u} appears twice" for u, n in Counter(uuids).items() if n > 1]
    cis = {(gi.gi_id, ci.ci_id) for gi in gpu.gpu_instances for ci in gi.compute_instances}
    problems += [
        f"{where}: process {p.pid} runs in GI {p.gi_id} / CI {p.ci_id}, which does not exist"
        for p in gpu.processes
        if (p.gi_id, p.ci_id) not in cis
    ]
    return problems


def _check_cis(model: GpuModel, gi: GpuInstance, at: str) -> list[str]:
    profile = model.profile(gi.profile or "")
    assert profile is not None
    problems = []
    slices = sms = 0
    ci_ids: set[int | None] = set()
    for ci in gi.compute_instances:
        if ci.ci_id is None or ci.ci_id in ci_ids:
            problems.append(f"{at}: CI id {ci.ci_id} missing or used twice")
        ci_ids.add(ci.ci_id)
        m = _CI_PROFILE.match(ci.profile or "")
        if m is None or m.group(2) != profile.name:
            problems.append(f"{at} CI {ci.ci_id}: profile '{ci.profile}' does not belong to {profile.name}")
            continue
        c = int(m.group(1)) if m.group(1) else profile.compute_slices
        if not 1 <= c <= profile.compute_slices or (m.group(1) and c == profile.compute_slices):
            problems.append(f"{at} CI {ci.ci_id}: '{ci.profile}' is not a compute-instance profile of {profile.name}")
            continue
        slices += c
        expected = ci_sm_count(model, profile, c)
        if ci.sm_count != expected:
            problems.append(f"{at} CI {ci.ci_id}: {ci.sm_count} SMs, the table gives {expected} for {ci.profile}")
        sms += ci.sm_count or 0
        if ci.mig_uuid is not None and not _MIG_UUID.match(ci.mig_uuid):
            problems.append(f"{at} CI {ci.ci_id}: '{ci.mig_uuid}' is not a MIG UUID")
    if slices > profile.compute_slices:
        problems.append(f"{at}: CIs take {slices} compute slices of the GI's {profile.compute_slices}")
    if profile.sm_count is not None and sms > profile.sm_count:
        problems.append(f"{at}: CIs have {sms} SMs, more than the GI's {profile.sm_count}")
    return problems
