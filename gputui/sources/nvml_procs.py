"""One GPU's processes through NVML: compute, graphics and MPS clients, merged per PID, with user and command.

Each list is asked through the newest function version the driver has (v3, then v2, then the unversioned
one). A PID in several lists gets the combined type nvidia-smi prints: C+G, and M+C for an MPS client
that also holds a compute context; the MPS server itself is a plain C process.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from gputui.core.model import MpsClient, ProcessInfo
from gputui.procfs.proc_info import ProcInfo
from gputui.sources.nvml_calls import NvmlCalls

MIB = 1 << 20
NO_ID = 0xFFFFFFFF  # NVML's "not in a MIG instance"

COMPUTE = (
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetComputeRunningProcesses_v2",
    "nvmlDeviceGetComputeRunningProcesses",
)
GRAPHICS = (
    "nvmlDeviceGetGraphicsRunningProcesses_v3",
    "nvmlDeviceGetGraphicsRunningProcesses_v2",
    "nvmlDeviceGetGraphicsRunningProcesses",
)
MPS = (
    "nvmlDeviceGetMPSComputeRunningProcesses_v3",
    "nvmlDeviceGetMPSComputeRunningProcesses_v2",
    "nvmlDeviceGetMPSComputeRunningProcesses",
)

_TYPES = {"C": "C", "G": "G", "CG": "C+G", "M": "M", "CM": "M+C", "GM": "M+C", "CGM": "M+C"}


@dataclass(frozen=True, slots=True)
class GpuProcesses:
    """What NVML said about one GPU's processes; ``clients`` None when the MPS query is N/A."""

    processes: tuple[ProcessInfo, ...]
    clients: tuple[MpsClient, ...] | None
    compute_pids: frozenset[int]


def _id(v: Any) -> int | None:
    return None if v is None or v == NO_ID else int(v)


def thread_percentage(env: dict[str, str] | None) -> int | None:
    """CUDA_MPS_ACTIVE_THREAD_PERCENTAGE from a client's environment; None when unset, unreadable or odd."""
    raw = (env or {}).get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
    try:
        return None if raw is None else int(float(raw))
    except ValueError:
        return None


def _per_mig_device(
    calls: NvmlCalls, gpu: int, names: tuple[str, ...], devices: list[tuple[Any, int | None, int | None]]
) -> list[Any] | None:
    """A process list gathered from each MIG device, for a caller NVML refuses the whole GPU's list."""
    out: list[Any] | None = None
    for mh, gi, ci in devices:
        found = calls.first(names, gpu, mh, key="mig")
        if found is None:
            continue
        out = out or []
        for p in found:
            if _id(getattr(p, "gpuInstanceId", None)) is None:
                p = SimpleNamespace(
                    pid=p.pid, usedGpuMemory=getattr(p, "usedGpuMemory", None), gpuInstanceId=gi, computeInstanceId=ci
                )
            out.append(p)
    return out


def read_processes(
    calls: NvmlCalls,
    gpu: int,
    handle: Any,
    proc: ProcInfo,
    mig_devices: list[tuple[Any, int | None, int | None]] | None = None,
) -> GpuProcesses:
    """The GPU's processes. In MIG mode NVML gives the whole GPU's lists only to privileged callers; others
    get them per MIG device, which ``mig_devices`` (handle, GI id, CI id) allows."""
    lists = {kind: calls.first(names, gpu, handle) for kind, names in (("C", COMPUTE), ("G", GRAPHICS), ("M", MPS))}
    if mig_devices:
        for kind, names in (("C", COMPUTE), ("M", MPS)):
            if lists[kind] is None:
                lists[kind] = _per_mig_device(calls, gpu, names, mig_devices)
    kinds: dict[int, str] = {}
    first: dict[int, Any] = {}
    for kind, found in lists.items():
        for p in found or ():
            kinds[p.pid] = kinds.get(p.pid, "") + kind
            prev = first.get(p.pid)
            if prev is None or getattr(prev, "usedGpuMemory", None) is None:
                first[p.pid] = p
    procs = []
    clients = []
    for pid in sorted(kinds):
        p = first[pid]
        used = getattr(p, "usedGpuMemory", None)
        used_mib = None if used is None else used // MIB
        user, command = proc.user_and_command(pid)
        procs.append(
            ProcessInfo(
                pid=pid,
                type=_TYPES["".join(sorted(kinds[pid]))],
                used_memory_mib=used_mib,
                user=user,
                command=command,
                gi_id=_id(getattr(p, "gpuInstanceId", None)),
                ci_id=_id(getattr(p, "computeInstanceId", None)),
            )
        )
        if "M" in kinds[pid]:
            clients.append(MpsClient(pid, thread_percentage(proc.environ(pid)), used_mib, user, command))
    compute = frozenset(p.pid for p in lists["C"] or ())
    return GpuProcesses(tuple(procs), None if lists["M"] is None else tuple(clients), compute)
