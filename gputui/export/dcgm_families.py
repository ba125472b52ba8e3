"""The GPU metrics under dcgm-exporter's names (etc/default-counters.csv of its 4.x releases), with its labels
and gputui's job labels; a value the snapshot lacks gives no sample, never 0."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gputui.core.model import GpuInstance, GpuSnapshot
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
