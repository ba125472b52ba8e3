"""Processes of a GPU from a log tree, and the MPS state they reveal."""

from __future__ import annotations

from gputui.core.model import MpsClient, MpsDaemon, ProcessInfo
from gputui.sources.nvsmi.tree import Node
from gputui.sources.nvsmi.values import integer, text

MPS_SERVER = "nvidia-cuda-mps-server"
MPS_CLIENT_TYPES = ("M", "M+C")
_INSTANCE_TAGS = ("gpu_instance_id", "compute_instance_id")


def process_records(processes: Node | None) -> list[Node]:
    """One `process_info` node per process, for XML and for the flat list of `-q` text alike.

    The text form lists 'GPU instance ID', 'Compute instance ID' and 'Process ID' (with Type, Name
    and Used GPU Memory nested under it) one after another; they are regrouped here.
    """
    if processes is None:
        return []
    infos = list(processes.all("process_info"))
    if infos:
        return infos
    records: list[Node] = []
    seen: set[str] = set()  # tags of the record being built (its lookup index is built only once done)
    for c in processes.children:
        next_process = "process_id" in seen and c.tag in _INSTANCE_TAGS
        if not records or c.tag in seen or next_process:
            records.append(Node("process_info"))
            seen = set()
        records[-1].children.append(c)
        seen.add(c.tag)
        if c.tag == "process_id":
            records[-1].children.extend(c.children)
            seen.update(n.tag for n in c.children)
    return [r for r in records if _has_pid(r)]


def _has_pid(record: Node) -> bool:
    return record.child("process_id") is not None or record.child("pid") is not None


def process_from_record(rec: Node) -> ProcessInfo | None:
    """A ProcessInfo from a process record; None when it has no pid."""
    pid = integer(rec.value("pid") or rec.value("process_id"))
    if pid is None:
        return None
    return ProcessInfo(
        pid=pid,
        type=text(rec.value("type")),
        used_memory_mib=integer(rec.value("used_memory") or rec.value("used_gpu_memory")),
        user=None,  # not in nvidia-smi logs
        command=text(rec.value("process_name") or rec.value("name")),
        gi_id=integer(rec.value("gpu_instance_id")),
        ci_id=integer(rec.value("compute_instance_id")),
    )


def mps_from_processes(processes: tuple[ProcessInfo, ...]) -> MpsDaemon | None:
    """MPS seen as running when an MPS client or server process is listed; None (unknown) otherwise.

    Thread percentages and the control daemon are not in nvidia-smi logs, so they stay None.
    """
    server = next((p for p in processes if p.command and p.command.rsplit("/", 1)[-1] == MPS_SERVER), None)
    clients = tuple(
        MpsClient(pid=p.pid, memory_used_mib=p.used_memory_mib, command=p.command)
        for p in processes
        if p.type in MPS_CLIENT_TYPES and p is not server
    )
    if server is None and not clients:
        return None
    return MpsDaemon(running=True, server_pid=server.pid if server else None, clients=clients)
