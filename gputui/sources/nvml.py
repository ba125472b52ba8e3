"""Live snapshots from the NVIDIA driver through NVML (nvidia-ml-py).

This is the first cut: whole-GPU fields, MIG devices and processes. Every NVML call goes through
``_get``, which turns an unsupported or refused query into N/A. GPU-instance placements, MPS
daemon detection and per-GPU 'lost' handling come with the live-NVML issue.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from types import ModuleType
from typing import Any

from gputui.core.errors import NvmlUnavailable
from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, NodeSnapshot, ProcessInfo

_COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _proc_user_and_command(pid: int) -> tuple[str | None, str | None]:
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
        import pwd

        user: str | None = pwd.getpwuid(uid).pw_name
    except (OSError, KeyError):
        user = None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip() or None
    except OSError:
        cmd = None
    return user, cmd


class NvmlSource:
    """A source polling the local driver; raises NvmlUnavailable when no driver answers."""

    def __init__(self, nvml: ModuleType | Any = None, node_name: str | None = None) -> None:
        if nvml is None:
            try:
                import pynvml
            except ImportError:
                raise NvmlUnavailable("NVML not available: the nvidia-ml-py package is not installed") from None
            nvml = pynvml
        self.nvml: Any = nvml
        try:
            nvml.nvmlInit()
        except nvml.NVMLError as e:
            raise NvmlUnavailable(f"NVML not available: {e}") from None
        except OSError as e:  # a broken libnvidia-ml.so
            raise NvmlUnavailable(f"NVML not available: {e}") from None
        self.node_name = node_name or socket.gethostname()
        self.description = f"live NVML on {self.node_name}"
        self.driver_version = self._get(nvml.nvmlSystemGetDriverVersion)
        cuda = self._get(nvml.nvmlSystemGetCudaDriverVersion)
        self.cuda_version = None if cuda is None else f"{cuda // 1000}.{cuda % 1000 // 10}"

    def _get(self, fn: Any, *args: Any) -> Any:
        """Call NVML; an error becomes N/A (None) instead of an exception."""
        try:
            v = fn(*args)
        except self.nvml.NVMLError:
            return None
        return _text(v) if isinstance(v, bytes) else v

    def poll(self) -> ClusterSnapshot:
        n = self.nvml
        count = self._get(n.nvmlDeviceGetCount) or 0
        gpus = tuple(self._gpu(i) for i in range(count))
        node = NodeSnapshot(self.node_name, gpus, self.driver_version, self.cuda_version)
        return ClusterSnapshot(time.time(), (node,), self.description)

    def _gpu(self, i: int) -> GpuSnapshot:
        n, g = self.nvml, self._get
        h = g(n.nvmlDeviceGetHandleByIndex, i)
        if h is None:
            return GpuSnapshot(index=i, lost=True)
        mem = g(n.nvmlDeviceGetMemoryInfo, h)
        util = g(n.nvmlDeviceGetUtilizationRates, h)
        pci = g(n.nvmlDeviceGetPciInfo, h)
        power = g(n.nvmlDeviceGetPowerUsage, h)
        limit = g(n.nvmlDeviceGetEnforcedPowerLimit, h)
        mig = g(n.nvmlDeviceGetMigMode, h)
        pstate = g(n.nvmlDeviceGetPerformanceState, h)
        persistence = g(n.nvmlDeviceGetPersistenceMode, h)
        mode = g(n.nvmlDeviceGetComputeMode, h)
        mig_current = None if mig is None else bool(mig[0])
        return GpuSnapshot(
            index=i,
            uuid=g(n.nvmlDeviceGetUUID, h),
            name=g(n.nvmlDeviceGetName, h),
            pci_bus_id=None if pci is None else _text(pci.busId),
            memory_total_mib=None if mem is None else mem.total // (1 << 20),
            memory_used_mib=None if mem is None else mem.used // (1 << 20),
            utilization_gpu=None if util is None else util.gpu,
            utilization_memory=None if util is None else util.memory,
            temperature_c=g(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU),
            power_draw_w=None if power is None else power / 1000,
            power_limit_w=None if limit is None else limit / 1000,
            fan_percent=g(n.nvmlDeviceGetFanSpeed, h),
            clock_graphics_mhz=g(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_GRAPHICS),
            clock_sm_mhz=g(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_SM),
            clock_memory_mhz=g(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_MEM),
            performance_state=None if pstate is None else f"P{pstate}",
            compute_mode=None if mode is None else _COMPUTE_MODES.get(mode),
            persistence_mode=None if persistence is None else bool(persistence),
            mig_mode_current=mig_current,
            mig_mode_pending=None if mig is None else bool(mig[1]),
            gpu_instances=self._mig(h) if mig_current else (),
            processes=self._processes(h),
        )

    def _mig(self, h: Any) -> tuple[GpuInstance, ...]:
        n, g = self.nvml, self._get
        by_gi: dict[int | None, list[tuple[ComputeInstance, Any]]] = {}
        for j in range(g(n.nvmlDeviceGetMaxMigDeviceCount, h) or 0):
            mh = g(n.nvmlDeviceGetMigDeviceHandleByIndex, h, j)
            if mh is None:
                continue
            attrs = g(n.nvmlDeviceGetAttributes, mh)
            ci = ComputeInstance(
                ci_id=g(n.nvmlDeviceGetComputeInstanceId, mh),
                sm_count=None if attrs is None else attrs.multiprocessorCount,
                mig_uuid=g(n.nvmlDeviceGetUUID, mh),
                mig_device_index=j,
            )
            by_gi.setdefault(g(n.nvmlDeviceGetGpuInstanceId, mh), []).append((ci, mh))
        out = []
        for gi_id, members in sorted(by_gi.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
            mem = g(n.nvmlDeviceGetMemoryInfo, members[0][1])
            out.append(
                GpuInstance(
                    gi_id=gi_id,
                    memory_total_mib=None if mem is None else mem.total // (1 << 20),
                    memory_used_mib=None if mem is None else mem.used // (1 << 20),
                    compute_instances=tuple(ci for ci, _ in members),
                )
            )
        return tuple(out)

    def _processes(self, h: Any) -> tuple[ProcessInfo, ...]:
        n, g = self.nvml, self._get
        found: dict[int, ProcessInfo] = {}
        for fn, kind in ((n.nvmlDeviceGetComputeRunningProcesses, "C"), (n.nvmlDeviceGetGraphicsRunningProcesses, "G")):
            for p in g(fn, h) or ():
                used = getattr(p, "usedGpuMemory", None)
                prev = found.get(p.pid)
                user, cmd = _proc_user_and_command(p.pid)
                gi = getattr(p, "gpuInstanceId", None)
                ci = getattr(p, "computeInstanceId", None)
                found[p.pid] = ProcessInfo(
                    pid=p.pid,
                    type="C+G" if prev is not None else kind,
                    used_memory_mib=None if used is None else used // (1 << 20),
                    user=user,
                    command=cmd,
                    gi_id=None if gi in (None, 0xFFFFFFFF) else gi,
                    ci_id=None if ci in (None, 0xFFFFFFFF) else ci,
                )
        return tuple(sorted(found.values(), key=lambda p: p.pid))

    def close(self) -> None:
        with contextlib.suppress(self.nvml.NVMLError):
            self.nvml.nvmlShutdown()
