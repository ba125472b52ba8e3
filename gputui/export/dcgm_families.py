"""The GPU metrics under dcgm-exporter's names (etc/default-counters.csv of its 4.x releases), with its labels
and gputui's job labels; a value the snapshot lacks gives no sample, never 0."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gputui.core.mig_profiles import model_for
from gputui.core.model import Activity, GpuInstance, GpuSnapshot
from gputui.export.rows import GpuRow
from gputui.export.text_format import Family

Value = Callable[[GpuSnapshot], float | int | None]

#: name -> (help as in dcgm-exporter's default-counters.csv, the snapshot's value)
GPU_FIELDS: dict[str, tuple[str, Value]] = {
    "DCGM_FI_DEV_SM_CLOCK": ("SM clock frequency (in MHz).", lambda g: g.clock_sm_mhz),
    "DCGM_FI_DEV_MEM_CLOCK": ("Memory clock frequency (in MHz).", lambda g: g.clock_memory_mhz),
    "DCGM_FI_DEV_GPU_TEMP": ("GPU temperature (in C).", lambda g: g.temperature_c),
    "DCGM_FI_DEV_POWER_USAGE": ("Power draw (in W).", lambda g: g.power_draw_w),
    "DCGM_FI_DEV_GPU_UTIL": ("GPU utilization (in %).", lambda g: g.utilization_gpu),
    "DCGM_FI_DEV_MEM_COPY_UTIL": ("Memory utilization (in %).", lambda g: g.utilization_memory),
    "DCGM_FI_DEV_FB_FREE": ("Framebuffer memory free (in MiB).", lambda g: g.memory_free_mib),
    "DCGM_FI_DEV_FB_USED": ("Framebuffer memory used (in MiB).", lambda g: g.memory_used_mib),
}


def _gi_used(gi: GpuInstance) -> int | None:
    return gi.memory_used_mib


def _gi_free(gi: GpuInstance) -> int | None:
    if gi.memory_total_mib is None or gi.memory_used_mib is None:
        return None
    return gi.memory_total_mib - gi.memory_used_mib


#: The fields dcgm-exporter also gives per MIG GPU instance (with GPU_I_PROFILE / GPU_I_ID).
INSTANCE_FIELDS: dict[str, Callable[[GpuInstance], int | None]] = {
    "DCGM_FI_DEV_FB_FREE": _gi_free,
    "DCGM_FI_DEV_FB_USED": _gi_used,
}


def dcgm_families(rows: list[GpuRow]) -> Iterator[Family]:
    for name, (doc, value) in GPU_FIELDS.items():
        fam = Family(name, doc)
        add = fam.series.append
        per_instance = INSTANCE_FIELDS.get(name)
        for row in rows:
            if row.gpu.lost:
                continue  # a lost GPU's values are stale: gputui_gpu_lost says so
            v = value(row.gpu)
            if v is not None:
                for text in row.texts:
                    add(f"{text} {v}")
            if per_instance is not None:
                for inst in row.instances:
                    iv = per_instance(inst.gi)
                    if iv is not None:
                        for text in inst.texts:
                            add(f"{text} {iv}")
        yield fam


#: DCGM's profiling fields (commented out or on in default-counters.csv) from NVML GPM: name -> (help, field).
PROF_FIELDS: dict[str, tuple[str, str]] = {
    "DCGM_FI_PROF_SM_ACTIVE": ("The ratio of cycles an SM has at least 1 warp assigned.", "sm_active"),
    "DCGM_FI_PROF_SM_OCCUPANCY": ("The ratio of number of warps resident on an SM.", "sm_occupancy"),
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": ("Ratio of cycles the tensor (HMMA) pipe is active.", "tensor_active"),
    "DCGM_FI_PROF_DRAM_ACTIVE": (
        "Ratio of cycles the device memory interface is active sending or receiving data.",
        "dram_active",
    ),
}


def instance_slices(gpu: GpuSnapshot, gi: GpuInstance) -> tuple[int | None, int | None]:
    """(the instance's compute slices, the GPU's), None where the MIG table does not know them."""
    model = model_for(gpu.name)
    p = model.profile(gi.profile) if model and gi.profile else None
    return (p.compute_slices if p else None), (model.compute_slices if model else None)


def ratio(a: Activity | None, name: str) -> float | None:
    v = None if a is None else getattr(a, name)
    return None if v is None else round(v / 100, 4)


def prof_families(rows: list[GpuRow]) -> Iterator[Family]:
    """DCGM's meaning: of the whole GPU, on the GPU's series and on each MIG instance's (an instance's own figure
    times its share of the GPU's compute slices), as ratios 0-1. gputui's own families give the instance's own."""
    for name, (doc, field) in PROF_FIELDS.items():
        fam = Family(name, doc)
        add = fam.series.append
        for row in rows:
            if row.gpu.lost:
                continue
            v = ratio(row.gpu.activity, field)
            if v is not None:
                for text in row.texts:
                    add(f"{text} {v}")
            for inst in row.instances:
                own = ratio(inst.gi.activity, field)
                slices, gpu_slices = instance_slices(row.gpu, inst.gi)
                if own is None or not slices or not gpu_slices:
                    continue
                iv = round(own * slices / gpu_slices, 4)
                if iv is not None:
                    for text in inst.texts:
                        add(f"{text} {iv}")
        yield fam
