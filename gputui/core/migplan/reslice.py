"""A snapshot with some GPUs re-sliced: the simulated effect of `mig apply --simulate` on a replay.

Each listed GPU gets exactly the listed instances: one the source already shows (same id, profile and placement)
is kept as it is, compute instances and memory included; a new one gets its profile's memory and SMs and one
compute instance with a synthetic MIG UUID. Processes on instances that no longer exist are gone (their work was
drained first).
"""

from __future__ import annotations

from dataclasses import replace

from gputui.core.mig_profiles import model_for
from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot

#: (GI id, profile, placement start) of each instance of one GPU
LayoutSpec = tuple[tuple[int, str, int], ...]


def _mig_uuid(node: str, index: int, gi: int, profile: str) -> str:
    import hashlib  # here, not above: hashlib loads OpenSSL (about 3.5 MiB resident), which a dashboard whose
    # job service imports this module (jobs/mig_layouts.py) needs only once a GPU is re-sliced

    h = hashlib.sha256(f"gputui-reslice/{node}/{index}/{gi}/{profile}".encode()).hexdigest()
    return f"MIG-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def reslice_gpu(node: str, gpu: GpuSnapshot, spec: LayoutSpec) -> GpuSnapshot:
    model = model_for(gpu.name)
    if model is None or not gpu.mig_enabled:
        return gpu
    old = {(gi.gi_id, gi.profile, gi.placement_start): gi for gi in gpu.gpu_instances}
    gis: list[GpuInstance] = []
    for gi_id, name, start in spec:
        kept = old.get((gi_id, name, start))
        if kept is not None:
            gis.append(kept)
            continue
        p = model.profile(name)
        if p is None or start not in dict(p.placements):
            continue  # a layout file from another table: skip what this one does not allow
        ci = ComputeInstance(0, p.name, p.sm_count, _mig_uuid(node, gpu.index, gi_id, p.name))
        gis.append(GpuInstance(gi_id, p.name, p.gi_profile_id, start, dict(p.placements)[start],
                               p.memory_mib_estimate, 0, p.sm_count, (ci,)))  # fmt: skip
    ids = {gi.gi_id for gi in gis}
    procs = tuple(pr for pr in gpu.processes if pr.gi_id is None or pr.gi_id in ids)
    gis.sort(key=lambda g: (g.placement_start or 0, g.gi_id or 0))
    return replace(gpu, gpu_instances=tuple(gis), processes=procs)


def apply_layouts(snap: ClusterSnapshot, layouts: dict[tuple[str, int], LayoutSpec]) -> ClusterSnapshot:
    """``snap`` with every GPU named in ``layouts`` (node, index) re-sliced; the same object when none is."""
    if not layouts:
        return snap
    nodes = []
    changed = False
    for node in snap.nodes:
        gpus = []
        for g in node.gpus:
            spec = layouts.get((node.name, g.index))
            if spec is None:
                gpus.append(g)
            else:
                gpus.append(reslice_gpu(node.name, g, spec))
                changed = True
        nodes.append(replace(node, gpus=tuple(gpus)))
    return replace(snap, nodes=tuple(nodes)) if changed else snap
