"""A stand-in for the pynvml module that answers the functions gputui calls from a NodeSnapshot.

It raises the real ``pynvml.NVMLError`` subclasses, so the collector's error mapping is the one it has on
hardware. Errors are injected per function and per GPU (:meth:`FakeNvml.fail`), functions can be taken
away as an older nvidia-ml-py would lack them (:meth:`FakeNvml.remove`), and every call is counted.
Used by the tests and by ``python -m gputui.bench nvml_poll --fake``.
"""

from __future__ import annotations

import ctypes
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pynvml

from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, NodeSnapshot
from gputui.sources.nvml_fake_gpm import GPM_FUNCTIONS, GpmState
from gputui.sources.nvml_fake_layout import ci_slices, gi_slices, normalise_node, profiles_for

MIB = 1 << 20
NO_ID = 0xFFFFFFFF
_MODES = {"Default": 0, "Exclusive_Thread": 1, "Prohibited": 2, "Exclusive_Process": 3}
_IMPLS: dict[str, Callable[..., Any]] = {}


def _nvml(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for n in names:
            _IMPLS[n] = fn
        return fn

    return register


@dataclass(frozen=True, slots=True)
class Handle:
    """A device handle: a whole GPU, or the MIG device at index ``mig`` on it."""

    gpu: int
    mig: int | None = None


@dataclass(slots=True)
class _Rule:
    function: str | None
    gpu: int | None
    error: int
    after: int
    on_mig: bool | None = None
    seen: int = 0


def _na() -> pynvml.NVMLError:
    return pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)


def _need(v: Any) -> Any:
    if v is None:
        raise _na()
    return v


class FakeNvml:
    """The pynvml functions and constants gputui's NVML source uses, answering from ``node``."""

    NVMLError = pynvml.NVMLError
    NVMLLibraryMismatchError = pynvml.NVMLLibraryMismatchError
    NVML_TEMPERATURE_GPU = pynvml.NVML_TEMPERATURE_GPU
    NVML_CLOCK_GRAPHICS = pynvml.NVML_CLOCK_GRAPHICS
    NVML_CLOCK_SM = pynvml.NVML_CLOCK_SM
    NVML_CLOCK_MEM = pynvml.NVML_CLOCK_MEM
    NVML_GPU_INSTANCE_PROFILE_COUNT = pynvml.NVML_GPU_INSTANCE_PROFILE_COUNT
    c_nvmlGpuInstance_t = ctypes.c_uint64  # GPU-instance handles are numbers here
    c_nvmlGpmSample_t = pynvml.c_nvmlGpmSample_t
    c_nvmlGpmMetricsGet_t = pynvml.c_nvmlGpmMetricsGet_t
    NVML_GPM_METRICS_GET_VERSION = pynvml.NVML_GPM_METRICS_GET_VERSION
    NVML_GPM_METRIC_SM_UTIL = pynvml.NVML_GPM_METRIC_SM_UTIL
    NVML_GPM_METRIC_SM_OCCUPANCY = pynvml.NVML_GPM_METRIC_SM_OCCUPANCY
    NVML_GPM_METRIC_DRAM_BW_UTIL = pynvml.NVML_GPM_METRIC_DRAM_BW_UTIL
    NVML_GPM_METRIC_ANY_TENSOR_UTIL = pynvml.NVML_GPM_METRIC_ANY_TENSOR_UTIL

    def __init__(
        self,
        node: NodeSnapshot,
        init_error: int | None = None,
        max_mig_devices: int = 7,
        *,
        clock: Callable[[], float] = time.monotonic,
        gpm: dict[int, bool] | None = None,
    ) -> None:
        """``clock`` times GPM samples (seconds); ``gpm`` overrides, per GPU index, whether a GPU has GPM
        (by default Hopper and newer do)."""
        self.init_error = init_error
        self.max_mig_devices = max_mig_devices
        self.gpm = GpmState(clock, dict(gpm or {}))
        self.calls: Counter[str] = Counter()
        self.removed: set[str] = set()
        self.rules: list[_Rule] = []
        self.initialised = False
        self.timed = False  # when True, ``seconds`` adds up the time spent answering (the fake's own cost)
        self.seconds = 0.0
        self.load(node)

    @classmethod
    def from_snapshot(cls, snap: ClusterSnapshot, node: str | None = None, **kw: Any) -> FakeNvml:
        return cls(snap.node(node) if node else snap.nodes[0], **kw)

    def load(self, node: NodeSnapshot) -> None:
        """Answer from ``node`` from now on (its MIG layout completed as NVML would report it); GPM counters
        count the previous node's activity up to now, this one's from now on."""
        previous: NodeSnapshot | None = self.__dict__.get("node")
        if previous is not None:
            self.gpm.advance(previous)
        self.gpm.capable.clear()
        self.gpm.instances.clear()
        self.node = normalise_node(node)
        self._gi_handles: dict[int, tuple[int, GpuInstance]] = {}
        self._profiles = {g.index: profiles_for(g) for g in self.node.gpus}

    # -- injection ---------------------------------------------------------------------------
    def fail(
        self,
        function: str | None = None,
        gpu: int | None = None,
        error: int = 3,
        after: int = 0,
        on_mig: bool | None = None,
    ) -> None:
        """Make ``function`` (None: every function) on ``gpu`` (None: any) raise NVML error ``error`` once it
        has answered ``after`` more times; e.g. ``fail(None, gpu=1, error=NVML_ERROR_GPU_IS_LOST)``.
        ``on_mig`` limits the rule to calls on MIG device handles (True) or on everything else (False)."""
        self.rules.append(_Rule(function, gpu, error, after, on_mig))

    def heal(self, function: str | None = None, gpu: int | None = None) -> None:
        self.rules = [r for r in self.rules if not (r.function == function and r.gpu == gpu)]

    def remove(self, *functions: str) -> None:
        """Take functions away, as an older nvidia-ml-py would not have them (AttributeError)."""
        self.removed.update(functions)
        for f in functions:
            self.__dict__.pop(f, None)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    # -- dispatch ----------------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        impl = _IMPLS.get(name)
        if impl is None or name in self.__dict__.get("removed", ()):
            raise AttributeError(name)

        def answer(*args: Any) -> Any:
            self.calls[name] += 1
            gpu = self._gpu_of(name, args)
            mig = bool(args) and type(args[0]) is Handle and args[0].mig is not None
            for r in self.rules:
                if (
                    (r.function is None or r.function == name)
                    and (r.gpu is None or r.gpu == gpu)
                    and (r.on_mig is None or r.on_mig == mig)
                ):
                    r.seen += 1
                    if r.seen > r.after:
                        raise pynvml.NVMLError(r.error)
            if not self.initialised and name != "nvmlInit":
                raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)
            return impl(self, *args)

        def call(*args: Any) -> Any:
            if not self.timed:
                return answer(*args)
            t0 = time.perf_counter()
            try:
                return answer(*args)
            finally:
                self.seconds += time.perf_counter() - t0

        self.__dict__[name] = call  # found directly from now on, as a module's function is; remove() drops it
        return call

    def _gpu_of(self, name: str, args: tuple) -> int | None:
        if not args:
            return None
        a = args[0]
        if name == "nvmlDeviceGetHandleByIndex":
            return int(a)
        if type(a) is Handle:  # not isinstance: on a pynvml structure that reads its __class__ through Python
            return a.gpu
        if type(a) is int and a in self._gi_handles:
            return self._gi_handles[a][0]
        return None

    def _gpu(self, h: Handle) -> GpuSnapshot:
        return self.node.gpus[h.gpu]

    def _ci(self, h: Handle) -> tuple[GpuInstance, ComputeInstance]:
        for gi in self._gpu(h).gpu_instances:
            for ci in gi.compute_instances:
                if ci.mig_device_index == h.mig:
                    return gi, ci
        raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_FOUND)

    # -- system ------------------------------------------------------------------------------
    @_nvml("nvmlInit")
    def _init(self) -> None:
        if self.init_error is not None:
            raise pynvml.NVMLError(self.init_error)
        self.initialised = True

    @_nvml("nvmlShutdown")
    def _shutdown(self) -> None:
        self.initialised = False

    @_nvml("nvmlSystemGetDriverVersion")
    def _driver(self) -> str:
        return _need(self.node.driver_version)

    @_nvml("nvmlSystemGetCudaDriverVersion", "nvmlSystemGetCudaDriverVersion_v2")
    def _cuda(self) -> int:
        major, _, minor = _need(self.node.cuda_version).partition(".")
        return int(major) * 1000 + int(minor or 0) * 10

    @_nvml("nvmlDeviceGetCount")
    def _count(self) -> int:
        return len(self.node.gpus)

    @_nvml("nvmlDeviceGetHandleByIndex")
    def _handle(self, i: int) -> Handle:
        if not 0 <= i < len(self.node.gpus):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return Handle(i)

    # -- whole-GPU fields ----------------------------------------------------------------------
    @_nvml("nvmlDeviceGetName")
    def _name(self, h: Handle) -> str:
        return _need(self._gpu(h).name)

    @_nvml("nvmlDeviceGetUUID")
    def _uuid(self, h: Handle) -> str:
        return _need(self._ci(h)[1].mig_uuid if h.mig is not None else self._gpu(h).uuid)

    @_nvml("nvmlDeviceGetPciInfo")
    def _pci(self, h: Handle) -> SimpleNamespace:
        return SimpleNamespace(busId=_need(self._gpu(h).pci_bus_id))

    @_nvml("nvmlDeviceGetMemoryInfo")
    def _memory(self, h: Handle) -> SimpleNamespace:
        src: Any = self._ci(h)[0] if h.mig is not None else self._gpu(h)
        total, used = _need(src.memory_total_mib), _need(src.memory_used_mib)
        return SimpleNamespace(total=total * MIB, used=used * MIB, free=(total - used) * MIB)

    @_nvml("nvmlDeviceGetUtilizationRates")
    def _util(self, h: Handle) -> SimpleNamespace:
        g = self._gpu(h)
        return SimpleNamespace(gpu=_need(g.utilization_gpu), memory=_need(g.utilization_memory))

    @_nvml("nvmlDeviceGetTemperature")
    def _temperature(self, h: Handle, sensor: int) -> int:
        return _need(self._gpu(h).temperature_c)

    @_nvml("nvmlDeviceGetPowerUsage")
    def _power(self, h: Handle) -> int:
        return round(_need(self._gpu(h).power_draw_w) * 1000)

    @_nvml("nvmlDeviceGetEnforcedPowerLimit")
    def _limit(self, h: Handle) -> int:
        return round(_need(self._gpu(h).power_limit_w) * 1000)

    @_nvml("nvmlDeviceGetFanSpeed")
    def _fan(self, h: Handle) -> int:
        return _need(self._gpu(h).fan_percent)

    @_nvml("nvmlDeviceGetClockInfo")
    def _clock(self, h: Handle, kind: int) -> int:
        g = self._gpu(h)
        values = {
            pynvml.NVML_CLOCK_GRAPHICS: g.clock_graphics_mhz,
            pynvml.NVML_CLOCK_SM: g.clock_sm_mhz,
            pynvml.NVML_CLOCK_MEM: g.clock_memory_mhz,
        }
        return _need(values.get(kind))

    @_nvml("nvmlDeviceGetPerformanceState")
    def _pstate(self, h: Handle) -> int:
        return int(_need(self._gpu(h).performance_state)[1:])

    @_nvml("nvmlDeviceGetComputeMode")
    def _mode(self, h: Handle) -> int:
        return _MODES[_need(self._gpu(h).compute_mode)]

    @_nvml("nvmlDeviceGetPersistenceMode")
    def _persistence(self, h: Handle) -> int:
        return int(_need(self._gpu(h).persistence_mode))

    @_nvml("nvmlDeviceGetMigMode")
    def _mig_mode(self, h: Handle) -> list[int]:
        g = self._gpu(h)
        return [int(_need(g.mig_mode_current)), int(bool(g.mig_mode_pending))]

    # -- processes ---------------------------------------------------------------------------
    def _procs(self, h: Handle, kind: str) -> list[SimpleNamespace]:
        """The processes of a kind; asked on a MIG device handle, those of that device, without GI/CI ids."""
        where = None
        if h.mig is not None:
            gi, ci = self._ci(h)
            where = (gi.gi_id, ci.ci_id)
        out = []
        for p in self._gpu(h).processes:
            kinds = {"C": "C", "G": "G", "C+G": "CG", "M": "M", "M+C": "MC"}.get(p.type or "C", "C")
            if kind not in kinds or (where is not None and (p.gi_id, p.ci_id) != where):
                continue
            gi_id = NO_ID if p.gi_id is None or where is not None else p.gi_id
            ci_id = NO_ID if p.ci_id is None or where is not None else p.ci_id
            used = None if p.used_memory_mib is None else p.used_memory_mib * MIB
            out.append(SimpleNamespace(pid=p.pid, usedGpuMemory=used, gpuInstanceId=gi_id, computeInstanceId=ci_id))
        return out

    @_nvml(
        "nvmlDeviceGetComputeRunningProcesses",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses_v3",
    )
    def _compute(self, h: Handle) -> list[SimpleNamespace]:
        return self._procs(h, "C")

    @_nvml(
        "nvmlDeviceGetGraphicsRunningProcesses",
        "nvmlDeviceGetGraphicsRunningProcesses_v2",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
    )
    def _graphics(self, h: Handle) -> list[SimpleNamespace]:
        return self._procs(h, "G")

    @_nvml(
        "nvmlDeviceGetMPSComputeRunningProcesses",
        "nvmlDeviceGetMPSComputeRunningProcesses_v2",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
    )
    def _mps(self, h: Handle) -> list[SimpleNamespace]:
        return self._procs(h, "M")

    @_nvml("nvmlDeviceGetProcessUtilization")
    def _process_util(self, h: Handle, last_seen: int) -> list[SimpleNamespace]:
        """Samples of the MPS clients whose ``sm_util`` the snapshot has and is above 0 (NVML lists only
        processes that ran since ``last_seen``); NotSupported when the snapshot has no such figure."""
        mps = self._gpu(h).mps
        known = [c for c in (mps.clients if mps else ()) if c.sm_util is not None]
        if not known:
            raise _na()
        stamp = int(last_seen) + 1_000_000
        return [
            SimpleNamespace(pid=c.pid, timeStamp=stamp, smUtil=c.sm_util, memUtil=0, encUtil=0, decUtil=0)
            for c in known
            if c.sm_util
        ]

    # -- MIG -----------------------------------------------------------------------------------
    def _mig_on(self, h: Handle) -> GpuSnapshot:
        g = self._gpu(h)
        if g.mig_mode_current is None:
            raise _na()
        return g

    @_nvml("nvmlDeviceGetMaxMigDeviceCount")
    def _max_mig(self, h: Handle) -> int:
        self._mig_on(h)
        return self.max_mig_devices

    @_nvml("nvmlDeviceGetMigDeviceHandleByIndex")
    def _mig_handle(self, h: Handle, j: int) -> Handle:
        mh = Handle(h.gpu, j)
        self._ci(mh)
        return mh

    @_nvml("nvmlDeviceGetGpuInstanceId")
    def _gi_id(self, mh: Handle) -> int:
        return _need(self._ci(mh)[0].gi_id)

    @_nvml("nvmlDeviceGetComputeInstanceId")
    def _ci_id(self, mh: Handle) -> int:
        return _need(self._ci(mh)[1].ci_id)

    @_nvml("nvmlDeviceGetAttributes")
    def _attributes(self, mh: Handle) -> SimpleNamespace:
        if mh.mig is None:
            raise _na()
        gi, ci = self._ci(mh)
        slices = gi_slices(gi.profile)
        return SimpleNamespace(
            multiprocessorCount=ci.sm_count or 0,
            gpuInstanceSliceCount=slices,
            computeInstanceSliceCount=ci_slices(ci.profile, slices),
            memorySizeMB=gi.memory_total_mib or 0,
        )

    @_nvml("nvmlDeviceGetGpuInstanceProfileInfo")
    def _profile_info(self, h: Handle, index: int) -> SimpleNamespace:
        self._mig_on(h)
        profiles = self._profiles[h.gpu]
        if not 0 <= index < len(profiles):
            raise _na()
        return profiles[index]

    @_nvml("nvmlDeviceGetGpuInstances")
    def _gpu_instances(self, h: Handle, profile_id: int, array: Any, count_ref: Any) -> int:
        gis = [gi for gi in self._mig_on(h).gpu_instances if gi.profile_id == profile_id]
        if len(array) < len(gis):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_INSUFFICIENT_SIZE)
        for k, gi in enumerate(gis):
            handle = 1000 * (h.gpu + 1) + (gi.gi_id or 0)
            self._gi_handles[handle] = (h.gpu, gi)
            array[k] = handle
        count_ref._obj.value = len(gis)
        return 0

    @_nvml("nvmlGpuInstanceGetInfo")
    def _gi_info(self, handle: int) -> SimpleNamespace:
        gpu, gi = self._gi_handles[int(handle)]
        return SimpleNamespace(
            device=Handle(gpu),
            id=gi.gi_id,
            profileId=gi.profile_id,
            placement=SimpleNamespace(start=gi.placement_start, size=gi.placement_size),
        )


for _name, _fn in GPM_FUNCTIONS.items():
    _IMPLS[_name] = _fn
