"""What `gputui mps status` reports: daemons and their servers, directories, GPU compute modes, log tails."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gputui.core.errors import NvmlUnavailable
from gputui.mps.control import MpsDirs, daemon_pid, find_control, server_list
from gputui.mps.logs import LogTail, log_tails
from gputui.procfs.mps_detect import DEFAULT_LOG_DIR, MpsControlProc, MpsScanner, MpsServerProc

MODE_HINT = (
    "read only; MPS is usually run with Exclusive_Process, which root sets with `nvidia-smi -c EXCLUSIVE_PROCESS`"
)


@dataclass(frozen=True, slots=True)
class GpuMode:
    index: int
    name: str | None
    compute_mode: str | None


@dataclass(frozen=True, slots=True)
class DaemonReport:
    """A daemon found in /proc, with the server PIDs it gave when asked (None: it could not be asked)."""

    control: MpsControlProc
    server_list: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class MpsStatus:
    daemons: tuple[DaemonReport, ...]
    orphan_servers: tuple[MpsServerProc, ...]
    complete: bool  # False: /proc hides other users' processes
    pipe_directory: str  # the one asked about (--pipe-dir, else the default)
    pipe_pid: int | None  # the live PID in that directory's pid file
    control_found: bool
    gpus: tuple[GpuMode, ...] | None
    gpus_note: str | None
    logs: tuple[LogTail, ...]


def compute_modes(nvml: Any = None) -> tuple[GpuMode, ...]:
    """Each GPU's compute mode through NVML; raises NvmlUnavailable without a driver."""
    from gputui.sources.nvml import COMPUTE_MODES, load_nvml
    from gputui.sources.nvml_calls import GpuLost, NvmlCalls

    module = nvml if nvml is not None else load_nvml()
    try:
        module.nvmlInit()
    except Exception as e:
        raise NvmlUnavailable(f"NVML not available: {e}") from None
    calls = NvmlCalls(module)
    out = []
    try:
        for i in range(calls("nvmlDeviceGetCount", None) or 0):
            try:
                h = calls("nvmlDeviceGetHandleByIndex", i, i)
                name = calls("nvmlDeviceGetName", i, h)
                mode = calls("nvmlDeviceGetComputeMode", i, h)
            except GpuLost:
                name, mode = None, None
            out.append(GpuMode(i, name, None if mode is None else COMPUTE_MODES.get(mode)))
    except GpuLost as e:
        raise NvmlUnavailable(f"NVML not available: {e.reason}") from None
    finally:
        with contextlib.suppress(Exception):
            module.nvmlShutdown()
    return tuple(out)


def collect_status(
    dirs: MpsDirs | None = None,
    *,
    proc_root: str = "/proc",
    binary: str | None = None,
    modes: Callable[[], tuple[GpuMode, ...]] = compute_modes,
    tail_lines: int = 10,
) -> MpsStatus:
    asked = dirs or MpsDirs()
    scan = MpsScanner(proc_root, pipe_dirs=(asked.pipe_directory,)).scan()
    found = find_control(binary) is not None
    reports = []
    for d in scan.daemons:
        servers = None
        if found and d.pipe_directory is not None:
            servers = server_list(MpsDirs(d.pipe_directory, d.log_directory or DEFAULT_LOG_DIR), binary=binary)
        reports.append(DaemonReport(d, servers))
    log_dirs = [d.log_directory for d in scan.daemons if d.log_directory]
    if dirs is not None or not log_dirs:
        log_dirs.append(asked.log_directory)
    logs = tuple(t for ld in dict.fromkeys(log_dirs) for t in log_tails(ld, tail_lines))
    try:
        gpus: tuple[GpuMode, ...] | None = modes()
        note = None
    except NvmlUnavailable as e:
        gpus, note = None, str(e)
    return MpsStatus(
        tuple(reports),
        scan.orphan_servers,
        scan.complete,
        asked.pipe_directory,
        daemon_pid(asked),
        found,
        gpus,
        note,
        logs,
    )


def _gpus_of(d: MpsControlProc) -> str:
    if not d.env_readable:
        return "N/A (its environment is not readable by this user)"
    return "all (CUDA_VISIBLE_DEVICES unset)" if d.visible_devices is None else d.visible_devices


def render_status(st: MpsStatus) -> list[str]:
    """The status as lines of plain text."""
    out = []
    if not st.daemons:
        out.append("No MPS control daemon is running.")
    for r in st.daemons:
        d = r.control
        out.append(f"MPS control daemon pid {d.pid} (user {d.user or 'N/A'})")
        out.append(f"  pipe directory: {d.pipe_directory or 'N/A'}")
        out.append(f"  log directory:  {d.log_directory or 'N/A'}")
        out.append(f"  GPUs:           {_gpus_of(d)}")
        procs = ", ".join(f"{s.pid} (user {s.user or 'N/A'})" for s in d.servers) or "none"
        out.append(f"  server processes: {procs}")
        if r.server_list is not None:
            out.append(f"  get_server_list:  {' '.join(map(str, r.server_list)) or 'none'}")
    if st.orphan_servers:
        out.append("MPS servers without a visible control daemon: " + ", ".join(str(s.pid) for s in st.orphan_servers))
    if st.pipe_pid is not None and all(r.control.pid != st.pipe_pid for r in st.daemons):
        out.append(f"{st.pipe_directory}: pid file names a live process {st.pipe_pid} (not visible as a daemon here)")
    if not st.complete:
        out.append("note: /proc hides other users' processes here; their daemons cannot be seen")
    if not st.control_found:
        out.append("note: nvidia-cuda-mps-control is not on PATH; daemons cannot be asked or started")
    out.append(f"GPU compute modes ({MODE_HINT}):")
    if st.gpus is None:
        out.append(f"  N/A ({st.gpus_note})")
    for g in st.gpus or ():
        out.append(f"  GPU {g.index}  {g.name or 'N/A'}  {g.compute_mode or 'N/A'}")
    for t in st.logs:
        if t.error is not None:
            out.append(f"{t.path}: {t.error}")
            continue
        out.append(f"{t.path} (last {len(t.lines)} lines):")
        out.extend(f"  {line}" for line in t.lines)
    return out
