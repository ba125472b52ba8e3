"""What a snapshot says of one unit's utilisation and memory.

NVML gives utilisation per GPU only. For a whole GPU that is the unit's own figure. For a MIG instance or an
MPS / shard share the GPU's figure is an upper bound (a kernel of any instance or client counts as the GPU
busy), so a GPU under the threshold proves each of its units idle, while a busy GPU proves nothing about one
unit: the reading is then "unknown", never "idle". A MIG GPU has no utilisation at all (nvidia-smi prints
N/A), so its instances read as unknown. The model carries no GPM / per-process SM figures; where a source adds
them, this is the one place to read them.
"""

from __future__ import annotations

from typing import NamedTuple

from gputui.core.idle.holdings import Holder, UnitKey
from gputui.core.model import GpuSnapshot

#: How a reading was obtained: the GPU's own figure, the GPU's figure as a bound on a part of it, the MIG
#: instance's own GPM SM activity, or the MPS clients' per-process SM utilisation.
EXACT = "gpu"
BOUND = "gpu-bound"
GPM = "gpm"
PROCESS = "process"


class Reading(NamedTuple):
    """``util`` the unit's utilisation or a bound under the threshold, None: unknown; ``gpu_util`` the GPU's."""

    util: int | None
    basis: str | None
    memory_mib: int | None
    gpu_util: int | None = None


def _share_memory(gpu: GpuSnapshot, pids: tuple[int, ...]) -> int | None:
    if not pids:
        return None
    wanted = set(pids)
    found: list[int] = []
    mps = gpu.mps
    for c in mps.clients if mps is not None else ():
        if c.pid in wanted and c.memory_used_mib is not None:
            found.append(c.memory_used_mib)
            wanted.discard(c.pid)
    for p in gpu.processes:
        if p.pid in wanted and p.used_memory_mib is not None:
            found.append(p.used_memory_mib)
    return sum(found) if found else None


def _share_sm(gpu: GpuSnapshot, pids: tuple[int, ...]) -> int | None:
    """The SM utilisation of a share's MPS clients added up; None unless every one of its pids has a figure."""
    mps = gpu.mps
    if not pids or mps is None:
        return None
    figures = {c.pid: c.sm_util for c in mps.clients}
    values = [figures.get(pid) for pid in pids]
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)


def read_unit(key: UnitKey, holder: Holder, gpu: GpuSnapshot | None, threshold: int) -> Reading:
    """The unit's utilisation (per cent) as far as it is known, and the memory it holds (MiB)."""
    if gpu is None or gpu.lost:
        return Reading(None, None, None)
    util = gpu.utilization_gpu
    if key.kind == "gpu":
        return Reading(util, EXACT if util is not None else None, gpu.memory_used_mib, util)
    if key.kind == "mig":
        gi = next((g for g in gpu.gpu_instances if str(g.gi_id) == key.ref), None)
        memory = gi.memory_used_mib if gi is not None else None
        if gi is None:
            return Reading(None, None, None)  # the instance is gone: nothing to judge
        if gi.activity is not None and gi.activity.sm_active is not None:
            return Reading(gi.activity.sm_active, GPM, memory, util)
    else:
        memory = _share_memory(gpu, holder.pids)
        sm = _share_sm(gpu, holder.pids)
        if sm is not None:
            return Reading(sm, PROCESS, memory, util)
    if util is None or util >= threshold:
        return Reading(None, None, memory, util)
    return Reading(util, BOUND, memory, util)
