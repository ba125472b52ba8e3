"""Plain-words views of a job for tables: granularity, allocation, state code, elapsed time."""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.parse.hostlist import compress_hostlist
from gputui.core.scheduler.parse.timespec import format_duration
from gputui.core.scheduler.request import JobRequest, cpu_text, mib_text

#: squeue's two-letter state codes.
STATE_CODES = {"PENDING": "PD", "RUNNING": "R", "COMPLETED": "CD", "FAILED": "F", "CANCELLED": "CA"}

#: request kind -> the granularity a jobs view shows.
GRANULARITY = {"count": "node", "nodes": "node", "device": "device", "mig": "MIG", "mps": "MPS", "cpu": "CPU",
               "shard": "shard", "milli": "share"}  # fmt: skip


def granularity(request: JobRequest) -> str:
    return GRANULARITY.get(request.kind, request.kind)


def _grant_text(g: GpuGrant) -> str:
    if g.mig is not None:
        return f"{g.index}[{g.mig.profile} GI {g.mig.gi_id}]"
    if g.mps_percent is not None:
        return f"{g.index}[MPS {g.mps_percent}%]"
    if g.shards is not None:
        return f"{g.index}[{g.shards} shard{'s' if g.shards != 1 else ''}]"
    if g.milli is not None:
        return f"{g.index}[{g.milli / 1000:.3f} GPU]"
    return str(g.index)


def host_text(ng: NodeGrant) -> str:
    """'4 CPUs, 8 GiB' of one node's part; '' for the default one CPU and no memory of a GPU job."""
    if ng.gpus and ng.cpu_milli <= 1000 and not ng.mem_mib:
        return ""
    parts = [cpu_text(ng.cpu_milli)]
    if ng.mem_mib:
        parts.append(mib_text(ng.mem_mib))
    return ", ".join(parts)


def allocation_text(alloc: Allocation | None) -> str:
    """``node01:0,1 node02:0``, ``node03:0[3g.20gb GI 2]``, ``node04:1[MPS 30%]``; empty when none."""
    if alloc is None:
        return ""
    parts = []
    for ng in alloc.nodes:
        host = "" if ng.exclusive else host_text(ng)
        if not ng.gpus and not ng.exclusive:
            parts.append(f"{ng.node} ({host})")
            continue
        gpus = ",".join(_grant_text(g) for g in ng.gpus)
        parts.append(f"{ng.node}:{gpus}" + (" (whole node)" if ng.exclusive else (f" ({host})" if host else "")))
    return " ".join(parts)


def nodelist(alloc: Allocation | None) -> str:
    return compress_hostlist(alloc.node_names) if alloc is not None else ""


def clock_text(seconds: float | None) -> str:
    """squeue's TIME column: ``M:SS``, ``H:MM:SS``, ``D-HH:MM:SS``."""
    if seconds is None:
        return "0:00"
    s = max(0, int(seconds))
    d, rest = divmod(s, 86400)
    h, rest = divmod(rest, 3600)
    m, sec = divmod(rest, 60)
    if d:
        return f"{d}-{h:02d}:{m:02d}:{sec:02d}"
    if h:
        return f"{h}:{m:02d}:{sec:02d}"
    return f"{m}:{sec:02d}"


def limit_text(limit_s: int | None) -> str:
    return "UNLIMITED" if limit_s is None else format_duration(limit_s)
