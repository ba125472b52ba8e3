"""Live snapshots of the local GPUs from the NVIDIA driver through NVML (nvidia-ml-py).

Every NVML call goes through :class:`~gputui.sources.nvml_calls.NvmlCalls`: what a GPU cannot answer is
N/A, and a GPU that NVML reports lost is marked ``lost`` (keeping its identity) while the other GPUs keep
updating; it is asked again on the next poll and comes back when it answers. MPS daemons are found in
/proc, user and command of each process too, and the node's CPUs and host memory (see procfs/host_resources.py).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gputui.core.errors import NvmlUnavailable
from gputui.core.model import Activity, ClusterSnapshot, GpuInstance, GpuSnapshot, MpsDaemon, NodeSnapshot
from gputui.procfs.host_resources import HostResources, usable_cpus
from gputui.procfs.mps_detect import MpsScan, MpsScanner
from gputui.procfs.proc_info import ProcInfo, user_name
from gputui.sources.mps_attach import mps_for_gpu
from gputui.sources.nvml_calls import GpuLost, NvmlCalls, log, text
from gputui.sources.nvml_procs import read_processes

if TYPE_CHECKING:
    from gputui.sources.nvml_gpm import GpmReader, GpmReading
    from gputui.sources.nvml_mig import MigReader

MIB = 1 << 20
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}
CUDA_VERSION = ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion")


@dataclass(slots=True)
class _Gpu:
    """What the source keeps between polls for one GPU index."""

    mig: MigReader | None = None  # made when the GPU is first seen in MIG mode (most never are)
    gpm: GpmReader | None = None  # made on the first poll with GPM asked for; again after a loss or MIG change
    handle: Any = None
    uuid: str | None = None
    name: str | None = None
    pci_bus_id: str | None = None
    mig_mode: bool | None = None
    lost: bool = False
    last: GpuSnapshot | None = None
    util_seen: int = 0  # the newest per-process utilisation sample read (µs), asked for newer ones next time


def load_nvml() -> Any:
    try:
        import pynvml
    except ImportError:
        raise NvmlUnavailable("NVML not available: the nvidia-ml-py package is not installed") from None
    return pynvml


class NvmlSource:
    """A source polling the local driver; raises NvmlUnavailable when no library or no driver answers."""

    def __init__(
        self,
        nvml: ModuleType | Any = None,
        node_name: str | None = None,
        *,
        proc_root: str = "/proc",
        users: Callable[[int], str | None] = user_name,
        clock: Callable[[], float] = time.time,
        mig_refresh_every: int = 10,
        cpus: Callable[[], int | None] = usable_cpus,
        gpm: bool = True,
    ) -> None:
        """``gpm`` False leaves GPM alone (per-instance activity is then N/A without a reason)."""
        self.nvml: Any = nvml if nvml is not None else load_nvml()
        self._init()
        self.calls = NvmlCalls(self.nvml)
        self.node_name = node_name or os.uname().nodename  # socket.gethostname(), without importing socket
        self.description = f"live NVML on {self.node_name}"
        self.clock = clock
        self.mig_refresh_every = mig_refresh_every
        self.gpm = gpm
        self.proc = ProcInfo(proc_root, users)
        self.mps = MpsScanner(proc_root, users=users)
        self.host = HostResources(proc_root, cpus)
        self._gpus: dict[int, _Gpu] = {}
        self._driver_down = False
        try:
            self.driver_version = self.calls("nvmlSystemGetDriverVersion", None)
            cuda = self.calls.first(CUDA_VERSION, None)
        except GpuLost as e:
            raise NvmlUnavailable(f"NVML not available: {e.reason}") from None
        self.cuda_version = None if cuda is None else f"{cuda // 1000}.{cuda % 1000 // 10}"

    def _init(self) -> None:
        try:
            self.nvml.nvmlInit()
        except OSError as e:  # a broken libnvidia-ml.so
            raise NvmlUnavailable(f"NVML not available: {e}") from None
        except Exception as e:
            if isinstance(e, getattr(self.nvml, "NVMLError", ())):
                raise NvmlUnavailable(f"NVML not available: {e}") from None
            raise

    # -- polling -----------------------------------------------------------------------------
    def poll(self) -> ClusterSnapshot:
        t = self.clock()
        gpus: list[GpuSnapshot] = []
        try:
            if self._driver_down:
                self._reinit()
            count = self.calls("nvmlDeviceGetCount", None) or 0
        except (GpuLost, NvmlUnavailable) as e:
            if not self._driver_down:
                log.warning("NVML stopped answering: %s; every GPU is shown as lost", e)
            self._driver_down = True
            gpus = [self._lost(i, st) for i, st in sorted(self._gpus.items())]
        else:
            self._driver_down = False
            try:
                scan: MpsScan | None = self.mps.scan()
            except OSError:
                scan = None
            gpus = [self._gpu(i, scan) for i in range(count)]
            self.proc.keep_only(p.pid for g in gpus for p in g.processes)
        node = NodeSnapshot(
            self.node_name, tuple(gpus), self.driver_version, self.cuda_version, resources=self.host.read()
        )
        return ClusterSnapshot(t, (node,), self.description)

    def _reinit(self) -> None:
        with contextlib.suppress(Exception):
            self.nvml.nvmlShutdown()
        self._init()
        for st in self._gpus.values():
            st.handle = None

    def _state(self, i: int) -> _Gpu:
        st = self._gpus.get(i)
        if st is None:
            st = self._gpus[i] = _Gpu()
        return st

    def _mig(self, i: int, st: _Gpu) -> MigReader:
        if st.mig is None:
            from gputui.sources.nvml_mig import MigReader

            st.mig = MigReader(self.calls, i, self.mig_refresh_every)
        return st.mig

    def _gpm(self, i: int, st: _Gpu) -> GpmReader:
        if st.gpm is None:
            from gputui.sources.nvml_gpm import GpmReader

            st.gpm = GpmReader(self.calls, i, st.name)
        return st.gpm

    def _drop_gpm(self, st: _Gpu) -> None:
        if st.gpm is not None:
            st.gpm.close()
            st.gpm = None

    def _gpu(self, i: int, scan: MpsScan | None) -> GpuSnapshot:
        st = self._state(i)
        try:
            snap = self._read(i, st, scan)
        except GpuLost as e:
            if not st.lost:
                log.warning("GPU %d lost: %s", i, e.reason)
            return self._lost(i, st)
        if st.lost:
            log.warning("GPU %d answers again", i)
        st.lost, st.last = False, snap
        return snap

    def _lost(self, i: int, st: _Gpu) -> GpuSnapshot:
        """The GPU marked lost, with what is known of it: identity and memory size."""
        st.lost, st.handle = True, None
        self.calls.forget(i)
        st.mig = None
        self._drop_gpm(st)  # asked again (support, samples) when it is back
        total = st.last.memory_total_mib if st.last is not None else None
        return GpuSnapshot(i, st.uuid, st.name, st.pci_bus_id, memory_total_mib=total, lost=True)

    def _read(self, i: int, st: _Gpu, scan: MpsScan | None) -> GpuSnapshot:
        n, c = self.nvml, self.calls
        if st.handle is None:
            st.handle = c("nvmlDeviceGetHandleByIndex", i, i)
            if st.handle is None:
                raise GpuLost(i, "no handle")
            st.uuid = c("nvmlDeviceGetUUID", i, st.handle)
            st.name = c("nvmlDeviceGetName", i, st.handle)
            pci = c("nvmlDeviceGetPciInfo", i, st.handle)
            st.pci_bus_id = None if pci is None else str(text(pci.busId))
        h = st.handle
        mig = c("nvmlDeviceGetMigMode", i, h)
        mig_current = None if mig is None else bool(mig[0])
        if st.mig_mode is not None and mig_current != st.mig_mode:
            c.forget(i)  # answers such as utilization change with the MIG mode
            st.mig = None
            self._drop_gpm(st)
        st.mig_mode = mig_current
        mem = c("nvmlDeviceGetMemoryInfo", i, h)
        util = c("nvmlDeviceGetUtilizationRates", i, h)
        power = c("nvmlDeviceGetPowerUsage", i, h)
        limit = c("nvmlDeviceGetEnforcedPowerLimit", i, h)
        pstate = c("nvmlDeviceGetPerformanceState", i, h)
        mode = c("nvmlDeviceGetComputeMode", i, h)
        persistence = c("nvmlDeviceGetPersistenceMode", i, h)
        clock_types = (
            getattr(n, "NVML_CLOCK_GRAPHICS", 0),
            getattr(n, "NVML_CLOCK_SM", 1),
            getattr(n, "NVML_CLOCK_MEM", 2),
        )
        graphics, sm, memory = (c("nvmlDeviceGetClockInfo", i, h, k, key=k) for k in clock_types)
        readings: list[GpmReading] = []
        gpm = self._gpm(i, st) if self.gpm else None
        if mig_current:
            per_gi = None
            if gpm is not None:

                def per_gi(layout: list[GpuInstance]) -> dict[int, Activity | None] | None:
                    readings.append(gpm.read(h, layout))
                    return readings[-1].instances

            gis = self._mig(i, st).read(h, st.name, per_gi)
        else:
            gis = ()
            if gpm is not None:
                readings.append(gpm.read(h, None))
        procs = read_processes(c, i, h, self.proc, self._mig(i, st).devices if mig_current else None)
        mig_uuids = tuple(ci.mig_uuid for gi in gis for ci in gi.compute_instances if ci.mig_uuid)
        reading = readings[-1] if readings else None
        mps = mps_for_gpu(scan, i, st.uuid, mig_uuids, procs.compute_pids, procs.clients or ())
        if mps is not None and mps.clients:
            mps = self._client_util(i, st, h, mps)
        return GpuSnapshot(
            index=i,
            uuid=st.uuid,
            name=st.name,
            pci_bus_id=st.pci_bus_id,
            memory_total_mib=None if mem is None else mem.total // MIB,
            memory_used_mib=None if mem is None else mem.used // MIB,
            utilization_gpu=None if util is None else util.gpu,
            utilization_memory=None if util is None else util.memory,
            temperature_c=c("nvmlDeviceGetTemperature", i, h, getattr(n, "NVML_TEMPERATURE_GPU", 0)),
            power_draw_w=None if power is None else power / 1000,
            power_limit_w=None if limit is None else limit / 1000,
            fan_percent=c("nvmlDeviceGetFanSpeed", i, h),
            clock_graphics_mhz=graphics,
            clock_sm_mhz=sm,
            clock_memory_mhz=memory,
            performance_state=None if pstate is None or not 0 <= pstate <= 15 else f"P{pstate}",
            compute_mode=None if mode is None else COMPUTE_MODES.get(mode),
            persistence_mode=None if persistence is None else bool(persistence),
            mig_mode_current=mig_current,
            mig_mode_pending=None if mig is None else bool(mig[1]),
            gpu_instances=gis,
            mps=mps,
            processes=procs.processes,
            activity=None if reading is None else reading.gpu,
            activity_na=None if reading is None else reading.na,
        )

    def _client_util(self, i: int, st: _Gpu, h: Any, mps: MpsDaemon) -> MpsDaemon:
        """Each MPS client's SM utilisation since the last poll (nvmlDeviceGetProcessUtilization lists the
        processes that ran since the time it is given: a client it does not list ran no kernel, 0 %)."""
        samples = self.calls("nvmlDeviceGetProcessUtilization", i, h, st.util_seen)
        if samples is None:
            return mps
        sm: dict[int, int] = {}
        for s in samples:
            sm[s.pid] = max(sm.get(s.pid, 0), int(s.smUtil))
            st.util_seen = max(st.util_seen, int(s.timeStamp))
        clients = tuple(replace(c, sm_util=min(100, sm.get(c.pid, 0))) for c in mps.clients)
        return replace(mps, clients=clients)

    def close(self) -> None:
        for st in self._gpus.values():
            self._drop_gpm(st)
        with contextlib.suppress(Exception):
            self.nvml.nvmlShutdown()
