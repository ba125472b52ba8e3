"""User, command line and environment of local processes, read from /proc (or a tree laid out like it).

Everything read is plain data: nothing is executed or expanded. A process that is gone, or whose file
the kernel refuses (another user's environment), gives None, which the snapshot shows as N/A.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Callable, Iterable
from functools import cache


def read_bytes(path: str, limit: int = 1 << 20) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def read_argv(root: str, pid: int) -> list[str] | None:
    """The process's argv; None when gone, [] for a kernel thread or a zombie."""
    raw = read_bytes(f"{root}/{pid}/cmdline")
    if raw is None:
        return None
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def read_environ(root: str, pid: int) -> dict[str, str] | None:
    """The environment the process started with; None when refused (another user's process) or gone."""
    raw = read_bytes(f"{root}/{pid}/environ", 4 << 20)
    if raw is None:
        return None
    env = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep and k:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def read_comm(root: str, pid: int | str) -> bytes | None:
    """The kernel's 15-character process name, as bytes."""
    raw = read_bytes(f"{root}/{pid}/comm", 64)
    return None if raw is None else raw.rstrip(b"\n")


def read_uid(root: str, pid: int) -> int | None:
    """The real user id, from the 'Uid:' line of /proc/PID/status."""
    raw = read_bytes(f"{root}/{pid}/status", 8192)
    if raw is None:
        return None
    for line in raw.splitlines():
        if line.startswith(b"Uid:"):
            parts = line.split()
            return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    return None


def read_ppid(root: str, pid: int) -> int | None:
    """The parent PID, from /proc/PID/stat (after the command name, which may hold spaces and parentheses)."""
    raw = read_bytes(f"{root}/{pid}/stat", 4096)
    if raw is None:
        return None
    fields = raw[raw.rfind(b")") + 1 :].split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


@cache
def user_name(uid: int) -> str:
    """The login name for ``uid``, or the number when the password database does not know it."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def command_line(argv: list[str] | None) -> str | None:
    return " ".join(argv) if argv else None


class ProcInfo:
    """User and command of the processes NVML reports, cached per PID for as long as that PID stays in view."""

    def __init__(self, root: str = "/proc", users: Callable[[int], str | None] = user_name) -> None:
        self.root = root
        self.users = users
        self._cache: dict[int, tuple[str | None, str | None]] = {}
        self._env: dict[int, dict[str, str] | None] = {}

    def user_and_command(self, pid: int) -> tuple[str | None, str | None]:
        hit = self._cache.get(pid)
        if hit is None:
            uid = read_uid(self.root, pid)
            hit = (None if uid is None else self.users(uid), command_line(read_argv(self.root, pid)))
            self._cache[pid] = hit
        return hit

    def environ(self, pid: int) -> dict[str, str] | None:
        if pid not in self._env:
            self._env[pid] = read_environ(self.root, pid)
        return self._env[pid]

    def keep_only(self, pids: Iterable[int]) -> None:
        """Forget PIDs no longer on any GPU, so a reused PID is read afresh."""
        alive = set(pids)
        for d in (self._cache, self._env):
            for pid in [p for p in d if p not in alive]:
                del d[pid]

    def exists(self, pid: int) -> bool:
        return os.path.exists(f"{self.root}/{pid}")
