"""Start, stop and query an MPS control daemon through nvidia-cuda-mps-control, as NVIDIA's MPS guide does.

``nvidia-cuda-mps-control -d`` starts it with CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY and
CUDA_VISIBLE_DEVICES in its environment; commands such as ``quit`` are written to the client's stdin.
The program always runs by argv, never through a shell. Every function returns a :class:`ControlResult`
(one line for the user) and prints nothing, so the command line and the dashboard can both call it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gputui.core.errors import GputuiError
from gputui.procfs.mps_detect import CONTROL, DEFAULT_LOG_DIR, DEFAULT_PIPE_DIR, PID_FILE

_GPU_TOKEN = re.compile(r"^(\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$")
MISSING = f"{CONTROL} not found on PATH (it comes with the NVIDIA driver's CUDA/compute utilities)"


@dataclass(frozen=True, slots=True)
class MpsDirs:
    """Where a daemon keeps its control pipe and its logs."""

    pipe_directory: str = DEFAULT_PIPE_DIR
    log_directory: str = DEFAULT_LOG_DIR


@dataclass(frozen=True, slots=True)
class ControlResult:
    """What an MPS action did: ``message`` is one line for the user, ``output`` what the program printed."""

    ok: bool
    message: str
    output: str = ""
    pid: int | None = None


def parse_gpu_list(text: str) -> tuple[str, ...]:
    """'0,1' or GPU / MIG UUIDs, as CUDA_VISIBLE_DEVICES takes them; raises GputuiError for anything else."""
    tokens = tuple(t.strip() for t in text.split(","))
    bad = [t for t in tokens if not _GPU_TOKEN.match(t)]
    if not text.strip() or bad:
        raise GputuiError(f"--gpus {text!r}: expected GPU indices or UUIDs separated by commas (e.g. 0,1)")
    return tokens


def find_control(binary: str | None = None) -> str | None:
    """The nvidia-cuda-mps-control to run: ``binary`` if given (a path or a name on PATH), else the one on PATH."""
    return shutil.which(binary or CONTROL)


def control_env(dirs: MpsDirs, gpus: Sequence[str] | None = None, base: Mapping[str, str] | None = None) -> dict:
    env = dict(os.environ if base is None else base)
    env["CUDA_MPS_PIPE_DIRECTORY"] = dirs.pipe_directory
    env["CUDA_MPS_LOG_DIRECTORY"] = dirs.log_directory
    if gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)
    return env


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"
    except OSError:
        return True


def daemon_pid(dirs: MpsDirs) -> int | None:
    """The PID in the pipe directory's pid file, if that process is alive."""
    try:
        with open(os.path.join(dirs.pipe_directory, PID_FILE), "rb") as f:
            text = f.read(64).strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    return pid if pid_alive(pid) else None


def _wait(done: Callable[[], bool], timeout: float, sleep: Callable[[float], None] = time.sleep) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() >= deadline:
            return False
        sleep(0.05)
    return True


def _run(argv: list[str], env: dict, stdin: str | None, timeout: float) -> tuple[int, str]:
    try:
        p = subprocess.run(
            argv,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return -1, f"no answer within {timeout:g} s"
    except OSError as e:
        return -1, f"cannot run {argv[0]}: {e.strerror}"
    return p.returncode, (p.stdout + p.stderr).strip()


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def start_daemon(
    dirs: MpsDirs, gpus: Sequence[str] | None = None, *, binary: str | None = None, timeout: float = 10.0
) -> ControlResult:
    """Start a control daemon serving ``gpus`` (None: what CUDA_VISIBLE_DEVICES already says, else all)."""
    exe = find_control(binary)
    if exe is None:
        return ControlResult(False, MISSING)
    running = daemon_pid(dirs)
    if running is not None:
        return ControlResult(
            False, f"an MPS control daemon already runs on pipe directory {dirs.pipe_directory} (pid {running})"
        )
    for what, d in (("pipe", dirs.pipe_directory), ("log", dirs.log_directory)):
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:
            return ControlResult(False, f"cannot create the {what} directory {d}: {e.strerror} (use --{what}-dir)")
    rc, out = _run([exe, "-d"], control_env(dirs, gpus), None, timeout)
    if rc != 0:
        return ControlResult(False, f"{CONTROL} -d failed: {_first_line(out) or f'exit status {rc}'}", out)
    if not _wait(lambda: daemon_pid(dirs) is not None, timeout):
        return ControlResult(False, f"{CONTROL} -d returned but wrote no pid file in {dirs.pipe_directory}", out)
    pid = daemon_pid(dirs)
    which = "GPU " + ",".join(gpus) if gpus is not None else "the GPUs CUDA sees"
    return ControlResult(
        True,
        f"MPS control daemon started (pid {pid}) for {which}; "
        f"pipe directory {dirs.pipe_directory}, log directory {dirs.log_directory}",
        out,
        pid,
    )


def send_commands(
    dirs: MpsDirs, commands: Sequence[str], *, binary: str | None = None, timeout: float = 10.0
) -> ControlResult:
    """Write ``commands`` (one per line) to the daemon on ``dirs`` through the control client."""
    exe = find_control(binary)
    if exe is None:
        return ControlResult(False, MISSING)
    rc, out = _run([exe], control_env(dirs), "".join(c + "\n" for c in commands), timeout)
    if rc != 0:
        return ControlResult(False, f"{CONTROL}: {_first_line(out) or f'exit status {rc}'}", out)
    return ControlResult(True, "ok", out)


def stop_daemon(dirs: MpsDirs, *, binary: str | None = None, timeout: float = 10.0) -> ControlResult:
    """``echo quit | nvidia-cuda-mps-control`` for the daemon on ``dirs``, then wait for it to go."""
    pid = daemon_pid(dirs)
    if pid is None:
        if find_control(binary) is None:
            return ControlResult(False, MISSING)
        return ControlResult(False, f"no MPS control daemon runs on pipe directory {dirs.pipe_directory}")
    r = send_commands(dirs, ["quit"], binary=binary, timeout=timeout)
    if not r.ok:
        return ControlResult(False, r.message, r.output, pid)
    if not _wait(lambda: not pid_alive(pid), timeout):
        return ControlResult(
            True,
            f"quit sent; the daemon (pid {pid}) still runs after {timeout:g} s (it waits for its clients)",
            "",
            pid,
        )
    return ControlResult(True, f"MPS control daemon stopped (pid {pid}, pipe directory {dirs.pipe_directory})", "", pid)


def server_list(dirs: MpsDirs, *, binary: str | None = None, timeout: float = 5.0) -> tuple[int, ...] | None:
    """The server PIDs ``get_server_list`` names; None when the daemon cannot be asked."""
    r = send_commands(dirs, ["get_server_list"], binary=binary, timeout=timeout)
    if not r.ok:
        return None
    return tuple(int(w) for w in r.output.split() if w.isdigit())
