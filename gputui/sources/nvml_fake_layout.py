"""What the fake NVML derives from a snapshot: the GI profile list, placements and MIG UUIDs a capture may lack.

A capture (nvidia-smi -q, an exporter bundle) names GPU instances but not always their placements or
MIG device UUIDs; NVML always has them, so they are filled in here, deterministically.
"""

from __future__ import annotations

import uuid as uuidlib
from dataclasses import replace
from types import SimpleNamespace

import pynvml

from gputui.core.mig_profiles import GpuModel, model_for
from gputui.core.model import GpuInstance, GpuSnapshot, NodeSnapshot


def gi_slices(profile: str | None) -> int:
    """Compute slices of a GI profile ('3g.40gb' -> 3)."""
    head = (profile or "").split(".")[0]
    return int(head[:-1]) if head.endswith("g") and head[:-1].isdigit() else 0


def ci_slices(profile: str | None, whole: int) -> int:
    """Compute slices of a CI profile ("2c.3g.40gb" -> 2); a CI spanning its GI has the GI's ``whole``."""
    head = (profile or "").split(".")[0]
    return int(head[:-1]) if head.endswith("c") and head[:-1].isdigit() else whole


def profiles_for(g: GpuSnapshot) -> list[SimpleNamespace]:
    """The GPU's GI profiles as nvmlDeviceGetGpuInstanceProfileInfo lists them (from the table, then the data)."""
    model = model_for(g.name)
    by_id: dict[int, SimpleNamespace] = {}
    for p in model.profiles if model else ():
        by_id[p.gi_profile_id] = SimpleNamespace(
            id=p.gi_profile_id,
            name=f"MIG {p.name}",
            sliceCount=p.compute_slices,
            instanceCount=p.max_instances,
            multiprocessorCount=p.sm_count or 0,
            memorySizeMB=p.memory_mib_estimate or 0,
        )
    for gi in g.gpu_instances:
        if gi.profile_id is None:
            continue
        info = by_id.setdefault(
            gi.profile_id,
            SimpleNamespace(id=gi.profile_id, name=f"MIG {gi.profile}", sliceCount=gi_slices(gi.profile)),
        )
        info.instanceCount = max(
            getattr(info, "instanceCount", 0), sum(x.profile_id == gi.profile_id for x in g.gpu_instances)
        )
        info.multiprocessorCount = gi.sm_count or getattr(info, "multiprocessorCount", 0)
        info.memorySizeMB = gi.memory_total_mib or getattr(info, "memorySizeMB", 0)
    return list(by_id.values())[: pynvml.NVML_GPU_INSTANCE_PROFILE_COUNT]


def normalise_node(node: NodeSnapshot) -> NodeSnapshot:
    """The node as NVML would report it: every GI placed and named, every CI with a MIG UUID and device index."""
    return replace(node, gpus=tuple(_normalise_gpu(g) for g in node.gpus))


def _normalise_gpu(g: GpuSnapshot) -> GpuSnapshot:
    if not g.gpu_instances:
        return g
    model = model_for(g.name)
    gis = [_named(gi, model) for gi in g.gpu_instances]
    gis = _placed(gis, model)
    j = 0
    out = []
    for gi in gis:
        cis = []
        for ci in gi.compute_instances:
            uid = ci.mig_uuid or f"MIG-{uuidlib.uuid5(uuidlib.NAMESPACE_OID, f'{g.uuid}/{gi.gi_id}/{ci.ci_id}')}"
            index = ci.mig_device_index if ci.mig_device_index is not None else j
            cis.append(replace(ci, mig_uuid=uid, mig_device_index=index, profile=ci.profile or gi.profile))
            j = max(j, index) + 1
        out.append(replace(gi, compute_instances=tuple(cis)))
    return replace(g, gpu_instances=tuple(out))


def _named(gi: GpuInstance, model: GpuModel | None) -> GpuInstance:
    p = model.profile(gi.profile) if model and gi.profile else None
    if p is None:
        return gi
    return replace(gi, profile_id=gi.profile_id if gi.profile_id is not None else p.gi_profile_id)


def _placed(gis: list[GpuInstance], model: GpuModel | None) -> list[GpuInstance]:
    """Give unplaced GIs a placement: largest first, each at the highest free start the table allows."""
    if model is None:
        return gis
    used = 0
    for gi in gis:
        if gi.placement_start is not None and gi.placement_size:
            used |= ((1 << gi.placement_size) - 1) << gi.placement_start
    placed = {}
    order = sorted(
        (k for k, gi in enumerate(gis) if gi.placement_start is None),
        key=lambda k: -(p.memory_slices if (p := model.profile(gis[k].profile or "")) else 0),
    )
    for k in order:
        p = model.profile(gis[k].profile or "")
        if p is None:
            continue
        free = model.free_placements(p, used)
        if not free:
            raise ValueError(f"{gis[k].profile} (GI {gis[k].gi_id}) does not fit on {model.key}")
        start = max(free)
        used |= p.placement_mask(start)
        placed[k] = replace(gis[k], placement_start=start, placement_size=p.memory_slices)
    return [placed.get(k, gi) for k, gi in enumerate(gis)]
