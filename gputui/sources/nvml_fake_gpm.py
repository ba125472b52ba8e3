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
from gputui.core.model import Activity, GpuInstance, GpuSnapshot, NodeSnapshot, activity_of_instances
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
_INDEX = {metric: _FIELDS.index(name) for metric, name in METRICS.items()}
_BASE_ADDRESS = 0x7F0000000000  # where the fake's sample handles point; never dereferenced

Unit = tuple[int, int | None]  # (GPU index, GPU instance id or None for the whole GPU)


def gpm_capable(name: str | None) -> bool:
    """Whether a GPU of this name has GPM (Hopper or newer)."""
    return bool(name and _GPM_NAMES.search(name))


@dataclass(slots=True)
class _Sample:
    unit: Unit | None = None
    time: float = 0.0
    totals: tuple[float, ...] = ()
    unknown: tuple[int, ...] = ()


@dataclass(slots=True)
class _UnitCounters:
    """Per field of _FIELDS: per-cent-seconds of activity since the fake started, and how many spans of it were
    unknown."""

    last: float
    totals: list[float] = field(default_factory=lambda: [0.0] * len(_FIELDS))
    unknown: list[int] = field(default_factory=lambda: [0] * len(_FIELDS))


@dataclass(slots=True)
class GpmState:
    """The fake's GPM counters, samples and clock. Each unit's counters are brought up to date when it is
    sampled, and all of them when the fake loads another snapshot."""

    clock: Callable[[], float]
    supported: dict[int, bool] = field(default_factory=dict)  # overrides of the name rule, per GPU index
    refused: set[Unit] = field(default_factory=set)  # units whose samples answer NoPermission
    capable: dict[int, bool] = field(default_factory=dict)  # the name rule's answers, until the next load
    instances: dict[tuple[int, int | None], GpuInstance] = field(default_factory=dict)  # by (GPU, GI id), likewise
    counters: dict[Unit, _UnitCounters] = field(default_factory=dict)
    samples: dict[int, _Sample] = field(default_factory=dict)
    requests: dict[int, Any] = field(default_factory=dict)  # views of the metrics requests seen, by address
    next_address: int = _BASE_ADDRESS

    def advance(self, node: NodeSnapshot) -> None:
        """Integrate ``node``'s activity, for every unit, up to now."""
        now = self.clock()
        for g in node.gpus:
            self.integrate((g.index, None), gpu_activity(g), now)
            for gi in g.gpu_instances:
                if gi.gi_id is not None:
                    self.integrate((g.index, gi.gi_id), gi.activity, now)

    def integrate(self, unit: Unit, a: Activity | None, now: float) -> _UnitCounters:
        uc = self.counters.get(unit)
        if uc is None:
            uc = self.counters[unit] = _UnitCounters(now)
            return uc
        dt = now - uc.last
        if dt <= 0:
            return uc
        uc.last = now
        values = (None,) * len(_FIELDS) if a is None else (a.sm_active, a.sm_occupancy, a.dram_active, a.tensor_active)
        totals, unknown = uc.totals, uc.unknown
        for k, v in enumerate(values):
            if v is None:
                unknown[k] += 1
            else:
                totals[k] += v * dt
        return uc


def gpu_activity(g: GpuSnapshot) -> Activity | None:
    """The whole GPU's activity: the snapshot's, or in MIG mode its instances' weighted by their compute slices."""
    if g.activity is not None or not g.gpu_instances:
        return g.activity
    model = model_for(g.name)
    total = model.compute_slices if model else sum(gi_slices(gi.profile) for gi in g.gpu_instances)
    return activity_of_instances([(gi.activity, gi_slices(gi.profile)) for gi in g.gpu_instances], total)


def _sample_key(sample: Any) -> int:
    address = ctypes.c_void_p.from_buffer(sample).value
    if address is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    return address


def _supported(fake: FakeNvml, gpu: int) -> bool:
    st = fake.gpm
    if gpu in st.supported:
        return st.supported[gpu]
    known = st.capable.get(gpu)
    if known is None:
        known = st.capable[gpu] = gpm_capable(fake.node.gpus[gpu].name)
    return known


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


def _take(fake: FakeNvml, unit: Unit, activity: Activity | None, sample: Any) -> Any:
    st = fake.gpm
    record = st.samples.get(_sample_key(sample))
    if record is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    if not _supported(fake, unit[0]):
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
    if unit in st.refused:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NO_PERMISSION)
    uc = st.integrate(unit, activity, st.clock())
    record.unit, record.time = unit, uc.last
    record.totals, record.unknown = tuple(uc.totals), tuple(uc.unknown)
    return sample


def _sample_get(fake: FakeNvml, h: Any, sample: Any) -> Any:
    gpu = _whole(fake, h)
    return _take(fake, (gpu, None), gpu_activity(fake.node.gpus[gpu]), sample)


def _mig_sample_get(fake: FakeNvml, h: Any, gi_id: int, sample: Any) -> Any:
    gpu = _whole(fake, h)
    g = fake.node.gpus[gpu]
    if not g.mig_mode_current:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
    gis = fake.gpm.instances
    if not gis:
        gis.update(((x.index, i.gi_id), i) for x in fake.node.gpus for i in x.gpu_instances)
    gi = gis.get((gpu, gi_id))
    if gi is None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)
    return _take(fake, (gpu, int(gi_id)), gi.activity, sample)


class _Metric(ctypes.Structure):
    """c_nvmlGpmMetric_t's leading fields as a plain ctypes structure: the fake reads and writes the caller's
    request through these views, without pynvml's per-attribute conversion of its printable structures."""

    _fields_ = [("metricId", ctypes.c_uint), ("nvmlReturn", ctypes.c_uint), ("value", ctypes.c_double)]


_GET = pynvml.c_nvmlGpmMetricsGet_t
_METRIC_SIZE = ctypes.sizeof(pynvml.c_nvmlGpmMetric_t)
_OFFSETS = (_GET.version.offset, _GET.numMetrics.offset, _GET.sample1.offset, _GET.sample2.offset)


@dataclass(slots=True)
class _Request:
    """Views of a caller's nvmlGpmMetricsGet_t, kept per request object (callers reuse theirs)."""

    version: Any
    count: Any
    sample1: Any
    sample2: Any
    metrics: list[_Metric] = field(default_factory=list)


def _views(fake: FakeNvml, mg: Any) -> _Request:
    key = ctypes.addressof(mg)
    v = fake.gpm.requests.get(key)
    if v is None:  # the views keep ``mg`` alive, so its address stays its own
        v = fake.gpm.requests[key] = _Request(
            ctypes.c_uint.from_buffer(mg, _OFFSETS[0]),
            ctypes.c_uint.from_buffer(mg, _OFFSETS[1]),
            ctypes.c_void_p.from_buffer(mg, _OFFSETS[2]),
            ctypes.c_void_p.from_buffer(mg, _OFFSETS[3]),
        )
    n = min(v.count.value, pynvml.NVML_GPM_METRIC_MAX)
    while len(v.metrics) < n:
        v.metrics.append(_Metric.from_buffer(mg, _GET.metrics.offset + len(v.metrics) * _METRIC_SIZE))
    return v


def _metrics_get(fake: FakeNvml, mg: Any) -> Any:
    v = _views(fake, mg)
    if v.version.value != pynvml.NVML_GPM_METRICS_GET_VERSION:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
    samples = fake.gpm.samples
    s1 = samples.get(v.sample1.value or 0)
    s2 = samples.get(v.sample2.value or 0)
    if s1 is None or s2 is None or s1.unit is None or s1.unit != s2.unit or not s2.time > s1.time:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
    dt = s2.time - s1.time
    for m in v.metrics[: min(v.count.value, pynvml.NVML_GPM_METRIC_MAX)]:
        i = _INDEX.get(m.metricId)
        if i is None:
            m.nvmlReturn, m.value = pynvml.NVML_ERROR_NOT_SUPPORTED, 0.0
            continue
        t1, t2 = s1.totals[i], s2.totals[i]
        if s1.unknown[i] != s2.unknown[i]:
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
