"""What /proc/PID/stat says of a local process: alive or not, its session, and its start time against pid reuse."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

PROC = "/proc"


@dataclass(frozen=True, slots=True)
class ProcStat:
    pid: int
    state: str  # R, S, D, Z, T, ...
    pgrp: int
    session: int
    start: int  # clock ticks after boot; with the pid, names one process for as long as the machine runs


def read_stat(pid: int, root: str = PROC) -> ProcStat | None:
    """The process's stat line, or None when there is no such process."""
    try:
        with open(f"{root}/{pid}/stat", "rb") as f:
            raw = f.read(4096)
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: fields start after the last ')'
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        return ProcStat(pid, fields[0].decode(), int(fields[2]), int(fields[3]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def start_ticks(pid: int) -> int | None:
    st = read_stat(pid)
    return None if st is None else st.start


def is_alive(pid: int | None, start: int | None) -> bool:
    """Whether ``pid`` still runs and is the same process that started at ``start`` (a zombie counts as gone)."""
    if pid is None or pid <= 0:
        return False
    st = read_stat(pid)
    if st is None or st.state in ("Z", "X", "x"):
        return False
    return start is None or st.start == start


def host_name() -> str:
    return socket.gethostname()


def self_stamp() -> tuple[int, int | None]:
    pid = os.getpid()
    return pid, start_ticks(pid)
