"""Per-GPU and per-MIG-instance activity through NVML's GPU Performance Monitoring (GPM, Hopper and newer).

A GPM metric is the difference of two samples, so each unit (the whole GPU, each MIG GPU instance) keeps
two sample buffers, allocated once: each poll fills the older one and compares it with the newer, then
they swap. The first poll of a unit has no figure yet. Support is asked once per GPU
(``nvmlGpmQueryDeviceSupport``); where it is missing (pre-Hopper, an A100 in MIG mode, a driver or
nvidia-ml-py without GPM, a refusal) the figures stay N/A and one reason says why.

Figures of a MIG instance come from ``nvmlGpmMigSampleGet`` and are of the instance's own slices.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gputui.core.mig_profiles import model_for
from gputui.core.model import Activity, GpuInstance, activity_of_instances
from gputui.sources.nvml_calls import UNINITIALIZED, GpuLost, NvmlCalls, log

#: (metric constant name, its id in nvml.h, the Activity field it fills).
METRICS = (
    ("NVML_GPM_METRIC_SM_UTIL", 2, "sm_active"),
    ("NVML_GPM_METRIC_SM_OCCUPANCY", 3, "sm_occupancy"),
    ("NVML_GPM_METRIC_DRAM_BW_UTIL", 10, "dram_active"),
    ("NVML_GPM_METRIC_ANY_TENSOR_UTIL", 5, "tensor_active"),
)
NVML_SUCCESS = 0


class _Metric(ctypes.Structure):
    """The leading fields of nvml.h's nvmlGpmMetric_t (id, return code, value), as plain ctypes."""

    _fields_ = [("metricId", ctypes.c_uint), ("nvmlReturn", ctypes.c_uint), ("value", ctypes.c_double)]


def _address(sample: Any) -> int | None:
    """Where a GPM sample handle (an opaque pointer) points."""
    return ctypes.cast(sample, ctypes.c_void_p).value


@dataclass(slots=True)
class _Unit:
    """Two GPM samples of one unit: ``fresh`` is filled next, ``older`` holds the previous poll's (if any)."""

    fresh: Any
    older: Any
    primed: bool = False
    fresh_at: int | None = None  # the samples' addresses, as the metrics request takes them
    older_at: int | None = None
    na_key: tuple[str, int | None] = ("gpm", None)  # what NvmlCalls remembers a lasting N/A of this unit by
    last: Activity | None = None  # the previous figures, handed out again while they stay the same


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
        self._model = model_for(gpu_name)
        self._gpu_slices = self._model.compute_slices if self._model else 0
        self._slice_counts: dict[str | None, int] = {}
        self.supported: bool | None = None  # asked on the first read
        self.reason: str | None = None
        self._units: dict[int | None, _Unit] = {}  # None: the whole GPU; else a GPU instance id
        self._request: Any = None
        self._slots: list[_Metric] = []
        self._sample1: Any = None
        self._sample2: Any = None
        self._refused: dict[int | None, str] = {}  # units whose samples were refused for good, and why

    def read(self, handle: Any, gis: Sequence[GpuInstance] | None) -> GpmReading:
        """This poll's figures: in MIG mode (``gis``) each instance's, and the GPU's as their sum weighted by
        compute slices (a sample of the parent device is not taken: it would cost two calls more per GPU for
        the same figure); else the whole GPU's own."""
        if self.supported is None:
            self._check(handle)
        if not self.supported:
            return GpmReading(na=self.reason)
        if gis is None:
            whole = self._unit_read(None, "nvmlGpmSampleGet", handle)
            return GpmReading(whole, None, self.reason)
        instances: dict[int, Activity | None] = {}
        parts = []
        for gi in gis:
            if gi.gi_id is None:
                continue
            a = instances[gi.gi_id] = self._unit_read(gi.gi_id, "nvmlGpmMigSampleGet", handle, gi.gi_id)
            parts.append((a, self._slices(gi.profile)))
        for gone in [k for k in self._units if k not in instances]:
            self._free(self._units.pop(gone))
        if instances and all(k in self._refused for k in instances):  # every instance refused: the GPU is
            self._refuse(self._refused[next(iter(instances))])
        if not self.supported:
            return GpmReading(na=self.reason)
        return GpmReading(activity_of_instances(parts, self._gpu_slices), instances, self.reason)

    def _slices(self, profile: str | None) -> int:
        known = self._slice_counts.get(profile)
        if known is None:
            p = self._model.profile(profile) if self._model and profile else None
            known = self._slice_counts[profile] = p.compute_slices if p else 0
        return known

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
            self._refuse(f"GPM: {c.why('nvmlGpmQueryDeviceSupport', self.gpu) or c.last_error or 'not available'}")
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
                self._refuse(f"GPM: {c.why('nvmlGpmSampleAlloc', i) or c.last_error or 'no sample buffer'}")
                return None
            u = self._units[key] = _Unit(fresh, older, False, _address(fresh), _address(older), ("gpm", key))
        if c(fn, i, handle, *args, u.fresh, key=u.na_key) is None:
            u.primed = False
            if c.is_na(fn, i, u.na_key) and key not in self._refused:  # refused for good: say why once
                why = self._refused[key] = f"GPM: {c.why(fn, i, u.na_key) or c.last_error or 'not available'}"
                if key is None:
                    self._refuse(why)
                elif self.reason is None and len(self._refused) < len(self._units):
                    self.reason = f"{why} (GPU instance {key})"
            return None
        out = self._metrics(u.older_at, u.fresh_at, u.last) if u.primed else None
        u.fresh, u.older, u.primed = u.older, u.fresh, True
        u.fresh_at, u.older_at = u.older_at, u.fresh_at
        u.last = out
        return out

    def _metrics(self, older: int | None, newer: int | None, last: Activity | None) -> Activity | None:
        if self._request is None:
            self._prepare()
        self._sample1.value = older
        self._sample2.value = newer
        if self.calls("nvmlGpmMetricsGet", self.gpu, self._request) is None:
            return None
        values = tuple(round(m.value) if m.nvmlReturn == NVML_SUCCESS else None for m in self._slots)
        if values.count(None) == len(values):
            return None
        if last is not None and values == (last.sm_active, last.sm_occupancy, last.dram_active, last.tensor_active):
            return last  # the same object: whatever compares snapshots finds it unchanged at once
        return Activity(*values)

    def _prepare(self) -> None:
        """The metrics request, made once and reused: its version, count and metric ids stay; each call
        sets only the two samples. It is read and written through plain ctypes views of its memory, which
        skip pynvml's per-attribute conversion of its printable structures."""
        nvml = self.calls.nvml
        cls = nvml.c_nvmlGpmMetricsGet_t
        mg = self._request = cls()
        mg.version = getattr(nvml, "NVML_GPM_METRICS_GET_VERSION", 1)
        mg.numMetrics = len(METRICS)
        size = ctypes.sizeof(dict(cls._fields_)["metrics"]._type_)
        self._slots = [_Metric.from_buffer(mg, cls.metrics.offset + k * size) for k in range(len(METRICS))]
        for m, (name, default, _) in zip(self._slots, METRICS, strict=True):
            m.metricId = getattr(nvml, name, default)
        self._sample1 = ctypes.c_void_p.from_buffer(mg, cls.sample1.offset)
        self._sample2 = ctypes.c_void_p.from_buffer(mg, cls.sample2.offset)

    def _free(self, u: _Unit) -> None:
        """Give the unit's samples back; a driver that stopped answering keeps them (nothing more can be done)."""
        for s in (u.fresh, u.older):
            with contextlib.suppress(GpuLost):
                self.calls("nvmlGpmSampleFree", self.gpu, s)
