"""GPU Performance Monitoring (GPM) for the fake NVML, written from nvml.h's structures as nvidia-ml-py exposes them.

GPM counts activity since boot; a metric is the difference of two samples divided by the time between them.
The fake keeps such counters per GPU and per MIG GPU instance, integrating the snapshot's
:class:`~gputui.core.model.Activity` (per cent) over the fake's clock, so two samples an interval apart give
back the activity the snapshot held over that interval. A figure the snapshot lacks (None) makes the metric
answer NotSupported in its ``nvmlReturn``, as NVML does for a metric a unit cannot count.

Support follows the hardware: Hopper and newer GPUs (H100, H200, GH200, B200 ...) have GPM, older ones
(A100, V100 ...) answer ``isSupportedDevice = 0``; tests can override it per GPU.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pynvml

from gputui.core.mig_profiles import model_for
from gputui.core.model import Activity, GpuSnapshot, NodeSnapshot
from gputui.sources.nvml_fake_layout import gi_slices

if TYPE_CHECKING:
    from gputui.sources.nvml_fake import FakeNvml

#: Hopper and newer data-centre parts: H100, H200, H800, H20, GH200, B100, B200, GB200.
_GPM_NAMES = re.compile(r"\b(G?H\d{2,3}|G?B\d{3})\b")

#: The GPM metric ids the fake counts, and the Activity field each reads.
METRICS = {
    pynvml.NVML_GPM_METRIC_SM_UTIL: "sm_active",
    pynvml.NVML_GPM_METRIC_SM_OCCUPANCY: "sm_occupancy",
    pynvml.NVML_GPM_METRIC_DRAM_BW_UTIL: "dram_active",
    pynvml.NVML_GPM_METRIC_ANY_TENSOR_UTIL: "tensor_active",
}
_FIELDS = tuple(METRICS.values())
_BASE_ADDRESS = 0x7F0000000000  # where the fake's sample handles point; never dereferenced

Unit = tuple[int, int | None]  # (GPU index, GPU instance id or None for the whole GPU)


def gpm_capable(name: str | None) -> bool:
    """Whether a GPU of this name has GPM (Hopper or newer)."""
    return bool(name and _GPM_NAMES.search(name))


@dataclass(slots=True)
class _Counter:
    """Per-cent-seconds of activity since the fake started, and how many spans of it were unknown."""

    total: float = 0.0
    unknown_spans: int = 0


@dataclass(slots=True)
class _Sample:
    unit: Unit | None = None
    time: float = 0.0
    values: tuple[tuple[float, int], ...] = ()


@dataclass(slots=True)
class GpmState:
    """The fake's GPM counters, samples and clock."""

    clock: Callable[[], float]
    supported: dict[int, bool] = field(default_factory=dict)  # overrides of the name rule, per GPU index
    counters: dict[Unit, dict[str, _Counter]] = field(default_factory=dict)
    samples: dict[int, _Sample] = field(default_factory=dict)
    last: float | None = None
    next_address: int = _BASE_ADDRESS

    def advance(self, node: NodeSnapshot) -> None:
        """Integrate ``node``'s activity from the last advance to now."""
        now = self.clock()
        dt = 0.0 if self.last is None else max(0.0, now - self.last)
        self.last = now
        if dt == 0.0:
            return
        for g in node.gpus:
            self._integrate((g.index, None), gpu_activity(g), dt)
            for gi in g.gpu_instances:
                if gi.gi_id is not None:
                    self._integrate((g.index, gi.gi_id), gi.activity, dt)

    def _integrate(self, unit: Unit, a: Activity | None, dt: float) -> None:
        counters = self.counters.get(unit)
        if counters is None:
            counters = self.counters[unit] = {f: _Counter() for f in _FIELDS}
        for f in _FIELDS:
            v = None if a is None else getattr(a, f)
            c = counters[f]
            if v is None:
                c.unknown_spans += 1
            else:
                c.total += v * dt

    def read(self, unit: Unit) -> tuple[tuple[float, int], ...]:
        counters = self.counters.get(unit)
        if counters is None:
            return tuple((0.0, 0) for _ in _FIELDS)
        return tuple((counters[f].total, counters[f].unknown_spans) for f in _FIELDS)


def gpu_activity(g: GpuSnapshot) -> Activity | None:
    """The whole GPU's activity: the snapshot's, or in MIG mode its instances' weighted by their compute slices
    (an empty slice is idle); None where an instance's figure is missing."""
    if g.activity is not None or not g.gpu_instances:
        return g.activity
    model = model_for(g.name)
    total = model.compute_slices if model else sum(gi_slices(gi.profile) for gi in g.gpu_instances)
    if not total or any(gi.activity is None for gi in g.gpu_instances):
        return None
    values: dict[str, float | None] = {}
    for f in _FIELDS:
        parts = [(getattr(gi.activity, f), gi_slices(gi.profile)) for gi in g.gpu_instances]
        values[f] = None if any(v is None for v, _ in parts) else sum(v * s for v, s in parts if v) / total
    return Activity(**values)


def _sample_key(sample: Any) -> int:
    address = ctypes.cast(sample, ctypes.c_void_p).value
    if address is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    return address


def _supported(fake: FakeNvml, gpu: int) -> bool:
    st = fake.gpm
    if gpu in st.supported:
        return st.supported[gpu]
    return gpm_capable(fake.node.gpus[gpu].name)


def _whole(fake: FakeNvml, h: Any) -> int:
    if getattr(h, "mig", None) is not None:  # GPM is asked of the parent device, never of a MIG device
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    return int(h.gpu)


def _query_support(fake: FakeNvml, h: Any) -> pynvml.c_nvmlGpmSupport_t:
    out = pynvml.c_nvmlGpmSupport_t()
    out.version = pynvml.NVML_GPM_SUPPORT_VERSION
    out.isSupportedDevice = int(_supported(fake, _whole(fake, h)))
    return out


def _alloc(fake: FakeNvml) -> Any:
    st = fake.gpm
    address = st.next_address
    st.next_address += 64
    st.samples[address] = _Sample()
    return ctypes.cast(ctypes.c_void_p(address), pynvml.c_nvmlGpmSample_t)


def _free(fake: FakeNvml, sample: Any) -> None:
    if fake.gpm.samples.pop(_sample_key(sample), None) is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)


def _take(fake: FakeNvml, unit: Unit, sample: Any) -> Any:
    st = fake.gpm
    record = st.samples.get(_sample_key(sample))
    if record is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    if not _supported(fake, unit[0]):
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
    st.advance(fake.node)
    record.unit, record.time, record.values = unit, st.last or 0.0, st.read(unit)
    return sample


def _sample_get(fake: FakeNvml, h: Any, sample: Any) -> Any:
    return _take(fake, (_whole(fake, h), None), sample)


def _mig_sample_get(fake: FakeNvml, h: Any, gi_id: int, sample: Any) -> Any:
    gpu = _whole(fake, h)
    g = fake.node.gpus[gpu]
    if not g.mig_mode_current:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
    if all(gi.gi_id != gi_id for gi in g.gpu_instances):
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)
    return _take(fake, (gpu, int(gi_id)), sample)


def _metrics_get(fake: FakeNvml, mg: Any) -> Any:
    if mg.version != pynvml.NVML_GPM_METRICS_GET_VERSION:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
    s1 = fake.gpm.samples.get(_sample_key(mg.sample1))
    s2 = fake.gpm.samples.get(_sample_key(mg.sample2))
    if s1 is None or s2 is None or s1.unit is None or s1.unit != s2.unit or not s2.time > s1.time:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    dt = s2.time - s1.time
    for k in range(mg.numMetrics):
        m = mg.metrics[k]
        name = METRICS.get(m.metricId)
        if name is None:
            m.nvmlReturn, m.value = pynvml.NVML_ERROR_NOT_SUPPORTED, 0.0
            continue
        i = _FIELDS.index(name)
        (t1, u1), (t2, u2) = s1.values[i], s2.values[i]
        if u1 != u2:
            m.nvmlReturn, m.value = pynvml.NVML_ERROR_NOT_SUPPORTED, 0.0
        else:
            m.nvmlReturn, m.value = pynvml.NVML_SUCCESS, max(0.0, min(100.0, (t2 - t1) / dt))
    return mg


#: The GPM functions, registered into the fake's dispatch table by nvml_fake.
GPM_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "nvmlGpmQueryDeviceSupport": _query_support,
    "nvmlGpmSampleAlloc": _alloc,
    "nvmlGpmSampleFree": _free,
    "nvmlGpmSampleGet": _sample_get,
    "nvmlGpmMigSampleGet": _mig_sample_get,
    "nvmlGpmMetricsGet": _metrics_get,
}
