"""The local machine's CPUs and host memory: CPUs this process may run on, memory from /proc/meminfo.

CPUs are asked once (they do not change under a running dashboard); /proc/meminfo is one small file, read
on every poll. Anything missing or unreadable is N/A, never an error.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from gputui.core.model import NodeResources
from gputui.procfs.proc_info import read_bytes

KIB_PER_MIB = 1024


def usable_cpus() -> int | None:
    """CPUs this process may use (its affinity mask, as a container or cgroup cpuset limits it), else all."""
    try:
        return len(os.sched_getaffinity(0)) or None
    except (AttributeError, OSError):  # no sched_getaffinity on this platform
        return os.cpu_count()


def read_meminfo(root: str = "/proc") -> tuple[int | None, int | None]:
    """(total, in use) in MiB from ``root``/meminfo; in use is MemTotal minus MemAvailable."""
    raw = read_bytes(f"{root}/meminfo", 16384)
    if raw is None:
        return None, None
    kib: dict[bytes, int] = {}
    for line in raw.splitlines():
        key, _, rest = line.partition(b":")
        if key in (b"MemTotal", b"MemAvailable"):
            parts = rest.split()
            if parts and parts[0].isdigit():
                kib[key] = int(parts[0])
    total, available = kib.get(b"MemTotal"), kib.get(b"MemAvailable")
    if total is None:
        return None, None
    used = None if available is None or available > total else (total - available) // KIB_PER_MIB
    return total // KIB_PER_MIB, used


class HostResources:
    """Reads the node's resources for each poll; ``cpus`` is called once, on the first read."""

    def __init__(self, proc_root: str = "/proc", cpus: Callable[[], int | None] = usable_cpus) -> None:
        self.proc_root = proc_root
        self._cpus_of = cpus
        self._cpus: int | None = None
        self._asked = False

    def read(self) -> NodeResources | None:
        """The node's CPUs and memory now; None when neither is known."""
        if not self._asked:
            self._cpus, self._asked = self._cpus_of(), True
        total, used = read_meminfo(self.proc_root)
        if self._cpus is None and total is None:
            return None
        return NodeResources(cpus=self._cpus, memory_mib=total, memory_used_mib=used)
