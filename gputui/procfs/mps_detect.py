"""Find MPS control daemons and servers among local processes, with their pipe and log directories.

A process counts as MPS when its 15-character kernel name is 'nvidia-cuda-mps' and its argv names
nvidia-cuda-mps-control or nvidia-cuda-mps-server. The daemon's environment says its directories and
GPUs; reading another user's environment is refused by the kernel, and those values are then N/A.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from gputui.procfs.proc_info import read_argv, read_bytes, read_comm, read_environ, read_ppid, read_uid, user_name

MPS_COMM = b"nvidia-cuda-mps"
CONTROL = "nvidia-cuda-mps-control"
SERVER = "nvidia-cuda-mps-server"
DEFAULT_PIPE_DIR = "/tmp/nvidia-mps"
DEFAULT_LOG_DIR = "/var/log/nvidia-mps"
PID_FILE = "nvidia-cuda-mps-control.pid"


@dataclass(frozen=True, slots=True)
class MpsServerProc:
    """One nvidia-cuda-mps-server process; its parent is the control daemon that started it."""

    pid: int
    ppid: int | None
    user: str | None


@dataclass(frozen=True, slots=True)
class MpsControlProc:
    """One nvidia-cuda-mps-control daemon; directories are None when its environment could not be read."""

    pid: int
    user: str | None
    env_readable: bool
    pipe_directory: str | None
    log_directory: str | None
    visible_devices: str | None  # CUDA_VISIBLE_DEVICES as set, None when unset (all GPUs) or unreadable
    servers: tuple[MpsServerProc, ...] = ()

    def serves(self, index: int, uuid: str | None, mig_uuids: tuple[str, ...] = ()) -> bool | None:
        """Whether this daemon serves the GPU; None when its environment could not be read."""
        if not self.env_readable:
            return None
        if self.visible_devices is None:
            return True
        return gpu_in_visible_devices(self.visible_devices, index, uuid, mig_uuids)


@dataclass(frozen=True, slots=True)
class MpsScan:
    """The MPS processes found; ``complete`` False when /proc hides other users' processes."""

    daemons: tuple[MpsControlProc, ...]
    orphan_servers: tuple[MpsServerProc, ...] = ()
    complete: bool = True


def gpu_in_visible_devices(value: str, index: int, uuid: str | None, mig_uuids: tuple[str, ...] = ()) -> bool:
    """Whether CUDA_VISIBLE_DEVICES ``value`` names the GPU, by index, (prefix of) UUID or one of its MIG devices.

    As CUDA does, parsing stops at the first entry that names nothing. Indices are taken as NVML's, which
    matches CUDA's order when CUDA_DEVICE_ORDER=PCI_BUS_ID (and on machines of identical GPUs).
    """
    for raw in value.split(","):
        tok = raw.strip()
        if tok.isdigit():
            if int(tok) == index:
                return True
        elif tok.startswith("GPU-") and len(tok) > 4:
            if uuid and uuid.startswith(tok):
                return True
        elif tok.startswith("MIG-"):
            if tok in mig_uuids or (uuid and tok.startswith(f"MIG-{uuid}/")):
                return True
        else:
            return False
    return False


def hides_processes(root: str = "/proc") -> bool:
    """Whether /proc is mounted with hidepid (and we are not root), so other users' daemons are invisible."""
    if os.geteuid() == 0:
        return False
    raw = read_bytes(f"{root}/mounts", 1 << 20)
    if raw is None:
        return False
    for line in raw.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] == b"proc" and parts[1] == root.encode():
            for opt in parts[3].split(b","):
                if opt.startswith(b"hidepid=") and opt[8:] not in (b"0", b"off"):
                    return True
    return False


def _kind(argv: list[str] | None) -> str | None:
    """'control' or 'server' from the first two argv words (the second when a script interpreter runs it)."""
    for word in (argv or [])[:2]:
        base = word.rsplit("/", 1)[-1]
        if base == CONTROL:
            return "control"
        if base == SERVER:
            return "server"
    return None


def pipe_dir_from_pid_file(pid: int, candidates: tuple[str, ...]) -> str | None:
    """The pipe directory whose pid file names ``pid``, for a daemon whose environment we may not read."""
    for d in candidates:
        raw = read_bytes(os.path.join(d, PID_FILE), 64)
        if raw is not None and raw.strip() == str(pid).encode():
            return d
    return None


class MpsScanner:
    """Scans /proc for MPS processes, cheaply enough to run on every poll.

    Only PIDs not seen before have their name read; a PID known not to be MPS is looked at again once
    every ``recheck`` scans, which catches a process that exec'd into an MPS binary after we first saw it.
    """

    def __init__(
        self,
        root: str = "/proc",
        recheck: int = 32,
        pipe_dirs: tuple[str, ...] = (DEFAULT_PIPE_DIR,),
        users: Callable[[int], str | None] = user_name,
    ) -> None:
        self.root = root
        self.users = users
        self.recheck = max(1, recheck)
        self.pipe_dirs = pipe_dirs
        self.complete = not hides_processes(root)
        self._plain: set[int] = set()
        self._mps: dict[int, MpsControlProc | MpsServerProc] = {}
        self._tick = 0

    def scan(self) -> MpsScan:
        self._tick += 1
        try:
            names = os.listdir(self.root)
        except OSError:
            return MpsScan((), (), complete=False)
        pids = [int(n) for n in names if n.isdigit()]
        present = set(pids)
        for pid in [p for p in self._mps if p not in present]:
            del self._mps[pid]
        self._plain &= present
        for pid in pids:
            if pid in self._mps or (pid in self._plain and (pid + self._tick) % self.recheck):
                continue
            comm = read_comm(self.root, pid)
            found = self._read(pid) if comm is not None and comm.startswith(MPS_COMM) else None
            if found is None:
                self._plain.add(pid)
            else:
                self._plain.discard(pid)
                self._mps[pid] = found
        return self._assemble()

    def _read(self, pid: int) -> MpsControlProc | MpsServerProc | None:
        kind = _kind(read_argv(self.root, pid))
        if kind is None:
            return None
        uid = read_uid(self.root, pid)
        user = None if uid is None else self.users(uid)
        if kind == "server":
            return MpsServerProc(pid, read_ppid(self.root, pid), user)
        env = read_environ(self.root, pid)
        if env is None:
            pipe = pipe_dir_from_pid_file(pid, self.pipe_dirs)
            return MpsControlProc(pid, user, False, pipe, None, None)
        return MpsControlProc(
            pid,
            user,
            True,
            env.get("CUDA_MPS_PIPE_DIRECTORY") or DEFAULT_PIPE_DIR,
            env.get("CUDA_MPS_LOG_DIRECTORY") or DEFAULT_LOG_DIR,
            env.get("CUDA_VISIBLE_DEVICES"),
        )

    def _assemble(self) -> MpsScan:
        controls = {pid: p for pid, p in self._mps.items() if isinstance(p, MpsControlProc)}
        servers = [p for p in self._mps.values() if isinstance(p, MpsServerProc)]
        by_parent: dict[int, list[MpsServerProc]] = {}
        orphans = []
        for s in sorted(servers, key=lambda s: s.pid):
            if s.ppid in controls:
                by_parent.setdefault(s.ppid, []).append(s)
            else:
                orphans.append(s)
        daemons = [replace(c, servers=tuple(by_parent.get(pid, ()))) for pid, c in sorted(controls.items())]
        return MpsScan(tuple(daemons), tuple(orphans), self.complete)
