"""Per-GPU and per-MIG-instance activity through NVML's GPU Performance Monitoring (GPM, Hopper and newer).

A GPM metric is the difference of two samples, so each unit (the whole GPU, each MIG GPU instance) keeps
two sample buffers, allocated once: each poll fills the older one and compares it with the newer, then
they swap. The first poll of a unit has no figure yet. Support is asked once per GPU
(``nvmlGpmQueryDeviceSupport``); where it is missing (pre-Hopper, an A100 in MIG mode, a driver or
nvidia-ml-py without GPM, a refusal) the figures stay N/A and one reason says why.

Figures of a MIG instance come from ``nvmlGpmMigSampleGet`` and are of the instance's own slices.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gputui.core.model import Activity
from gputui.sources.nvml_calls import UNINITIALIZED, GpuLost, NvmlCalls, log

#: (metric constant name, its id in nvml.h, the Activity field it fills).
METRICS = (
    ("NVML_GPM_METRIC_SM_UTIL", 2, "sm_active"),
    ("NVML_GPM_METRIC_SM_OCCUPANCY", 3, "sm_occupancy"),
    ("NVML_GPM_METRIC_DRAM_BW_UTIL", 10, "dram_active"),
    ("NVML_GPM_METRIC_ANY_TENSOR_UTIL", 5, "tensor_active"),
)
NVML_SUCCESS = 0


@dataclass(slots=True)
class _Unit:
    """Two GPM samples of one unit: ``fresh`` is filled next, ``older`` holds the previous poll's (if any)."""

    fresh: Any
    older: Any
    primed: bool = False


@dataclass(frozen=True, slots=True)
class GpmReading:
    """One poll's GPM figures for a GPU: its own, its instances' by GI id, and why they are N/A (None: not)."""

    gpu: Activity | None = None
    instances: dict[int, Activity | None] | None = None
    na: str | None = None


class GpmReader:
    """GPM for the GPU with NVML index ``gpu``; :meth:`close` frees its samples."""

    def __init__(self, calls: NvmlCalls, gpu: int, gpu_name: str | None) -> None:
        self.calls = calls
        self.gpu = gpu
        self.gpu_name = gpu_name
        self.supported: bool | None = None  # asked on the first read
        self.reason: str | None = None
        self._units: dict[int | None, _Unit] = {}  # None: the whole GPU; else a GPU instance id
        self._request: Any = None

    def read(self, handle: Any, gi_ids: Iterable[int] | None) -> GpmReading:
        """This poll's figures: the whole GPU's, and with ``gi_ids`` (MIG mode) each of those instances'."""
        if self.supported is None:
            self._check(handle)
        if not self.supported:
            return GpmReading(na=self.reason)
        whole = self._unit_read(None, "nvmlGpmSampleGet", handle)
        instances = None
        if gi_ids is not None:
            ids = list(gi_ids)
            instances = {gi: self._unit_read(gi, "nvmlGpmMigSampleGet", handle, gi) for gi in ids}
            for gone in [k for k in self._units if k is not None and k not in instances]:
                self._free(self._units.pop(gone))
        return GpmReading(whole, instances, self.reason)

    def close(self) -> None:
        for u in self._units.values():
            self._free(u)
        self._units.clear()

    # ---------------------------------------------------------------------------------------
    def _check(self, handle: Any) -> None:
        c = self.calls
        if c.absent("nvmlGpmQueryDeviceSupport") or c.absent("nvmlGpmMetricsGet"):
            self._refuse("GPM is not in the installed nvidia-ml-py")
            return
        try:
            support = c("nvmlGpmQueryDeviceSupport", self.gpu, handle)
        except GpuLost as e:
            if e.code != UNINITIALIZED:
                raise
            # pynvml's own function over a C library that is not loaded (a fake patching pynvml, as gpustat's
            # tests do): GPM is then absent, the rest answers
            self._refuse("GPM needs the C library, which is not loaded")
            return
        if support is None:
            self._refuse(f"GPM: {c.last_error or 'not available'}")
        elif not support.isSupportedDevice:
            self._refuse(f"no GPM on {self.gpu_name or 'this GPU'} (it needs Hopper or newer)")
        elif getattr(c.nvml, "c_nvmlGpmMetricsGet_t", None) is None:
            self._refuse("GPM is not in the installed nvidia-ml-py")
        else:
            self.supported = True

    def _refuse(self, reason: str) -> None:
        log.info("GPU %d: %s; its activity figures are N/A", self.gpu, reason)
        self.supported, self.reason = False, reason
        self.close()

    def _unit_read(self, key: int | None, fn: str, handle: Any, *args: Any) -> Activity | None:
        c, i = self.calls, self.gpu
        u = self._units.get(key)
        if u is None:
            fresh = c("nvmlGpmSampleAlloc", i)
            older = c("nvmlGpmSampleAlloc", i) if fresh is not None else None
            if fresh is None or older is None:
                self._refuse(f"GPM: {c.last_error or 'no sample buffer'}")
                return None
            u = self._units[key] = _Unit(fresh, older)
        if c(fn, i, handle, *args, u.fresh, key=("gpm", key)) is None:
            u.primed = False
            if c.is_na(fn, i, ("gpm", key)):  # refused for good: say why, once for the GPU
                why = f"GPM: {c.last_error or 'not available'}"
                if key is None:
                    self._refuse(why)
                else:
                    self.reason = f"{why} (GPU instance {key})"
            return None
        out = self._metrics(u.older, u.fresh) if u.primed else None
        u.fresh, u.older, u.primed = u.older, u.fresh, True
        return out

    def _metrics(self, older: Any, newer: Any) -> Activity | None:
        nvml = self.calls.nvml
        mg = self._request
        if mg is None:
            mg = self._request = nvml.c_nvmlGpmMetricsGet_t()
            mg.version = getattr(nvml, "NVML_GPM_METRICS_GET_VERSION", 1)
            mg.numMetrics = len(METRICS)
            for k, (name, default, _) in enumerate(METRICS):
                mg.metrics[k].metricId = getattr(nvml, name, default)
        mg.sample1, mg.sample2 = older, newer
        if self.calls("nvmlGpmMetricsGet", self.gpu, mg) is None:
            return None
        values: dict[str, float | None] = {}
        for k, (_, _, field) in enumerate(METRICS):
            m = mg.metrics[k]
            values[field] = round(m.value, 1) if m.nvmlReturn == NVML_SUCCESS else None
        if all(v is None for v in values.values()):
            return None
        return Activity(**values)

    def _free(self, u: _Unit) -> None:
        for s in (u.fresh, u.older):
            self.calls("nvmlGpmSampleFree", self.gpu, s)
