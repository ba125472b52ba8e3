"""Who holds a GPU: process rows with MPS clients attributed to their server, and a one-line holder summary.

Under MPS the driver lists the MPS server as the process using the GPU; the clients are known from
the MPS daemon. The rows here put each client under its server so that memory and users add up.
"""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.model import GpuSnapshot, MpsClient, ProcessInfo

MPS_SERVER_COMMAND = "nvidia-cuda-mps-server"


@dataclass(frozen=True, slots=True)
class ProcessRow:
    """One line of the process table; ``role`` is 'process', 'mps-server' or 'mps-client'."""

    key: str
    pid: int | None
    role: str
    user: str | None = None
    type: str | None = None
    gi_id: int | None = None
    ci_id: int | None = None
    memory_mib: int | None = None
    thread_percentage: int | None = None
    command: str | None = None


def _is_server(p: ProcessInfo, server_pid: int | None) -> bool:
    if server_pid is not None and p.pid == server_pid:
        return True
    return p.command is not None and p.command.rsplit("/", 1)[-1].startswith(MPS_SERVER_COMMAND)


def _client_row(c: MpsClient, proc: ProcessInfo | None) -> ProcessRow:
    return ProcessRow(
        key=f"c{c.pid}",
        pid=c.pid,
        role="mps-client",
        user=c.user or (proc.user if proc else None),
        type=proc.type if proc else "M",
        gi_id=proc.gi_id if proc else None,
        ci_id=proc.ci_id if proc else None,
        memory_mib=c.memory_used_mib if c.memory_used_mib is not None else (proc.used_memory_mib if proc else None),
        thread_percentage=c.active_thread_percentage,
        command=c.command or (proc.command if proc else None),
    )


def _process_row(p: ProcessInfo, role: str = "process") -> ProcessRow:
    return ProcessRow(
        key=f"p{p.pid}",
        pid=p.pid,
        role=role,
        user=p.user,
        type=p.type,
        gi_id=p.gi_id,
        ci_id=p.ci_id,
        memory_mib=p.used_memory_mib,
        command=p.command,
    )


def _order(p: ProcessInfo) -> tuple[int, int, int, int, int]:
    return (p.gi_id is None, p.gi_id or 0, p.ci_id is None, p.ci_id or 0, p.pid)


def process_rows(gpu: GpuSnapshot) -> list[ProcessRow]:
    """The process table of one GPU in nvidia-smi order, MPS clients right after their server."""
    mps = gpu.mps if gpu.mps is not None and gpu.mps.running else None
    clients = {c.pid: c for c in mps.clients} if mps else {}
    server_pid = mps.server_pid if mps else None
    procs = {p.pid: p for p in gpu.processes}
    rows: list[ProcessRow] = []
    server_seen = False
    for p in sorted(gpu.processes, key=_order):
        if p.pid in clients:
            continue  # shown under the server
        if mps is not None and not server_seen and _is_server(p, server_pid):
            server_seen = True
            rows.append(_process_row(p, "mps-server"))
            rows.extend(_client_row(c, procs.get(c.pid)) for c in mps.clients)
            continue
        rows.append(_process_row(p))
    if mps is not None and not server_seen and (clients or server_pid is not None):
        # The daemon reports a server (or clients) the process list does not show: keep them visible.
        rows.insert(0, ProcessRow(key="mps-server", pid=server_pid, role="mps-server", command=MPS_SERVER_COMMAND))
        rows[1:1] = [_client_row(c, procs.get(c.pid)) for c in mps.clients]
    return rows


def _users(rows: list[ProcessRow]) -> list[str]:
    seen: dict[str, None] = {}
    for r in rows:
        if r.role != "mps-server" and r.user:
            seen.setdefault(r.user, None)
    return list(seen)


def _join(users: list[str], limit: int = 3) -> str:
    if len(users) <= limit:
        return ", ".join(users)
    return ", ".join(users[:limit]) + f" +{len(users) - limit}"


def holder_summary(gpu: GpuSnapshot, held: bool = False) -> tuple[str, str]:
    """A short 'who holds it' text and its kind: 'lost', 'free', 'busy', 'mig', 'mps' or 'unattributed'.

    ``held``: a job holds the GPU (the app's jobs_by_gpu names one), so a MIG or MPS text, which the
    overview shows beside the job, never calls it idle; a 'free' text is shown as the job alone.
    """
    if gpu.lost:
        return "GPU lost", "lost"
    if gpu.mps is None or not gpu.mps.running:
        # No server to attribute clients to: the users in process order, without building rows.
        ordered = sorted(gpu.processes, key=_order) if len(gpu.processes) > 1 else gpu.processes
        users = list(dict.fromkeys(p.user for p in ordered if p.user))
        workers_count = len(ordered)
    else:
        rows = process_rows(gpu)
        users = _users(rows)
        workers_count = sum(1 for r in rows if r.role != "mps-server")
    if gpu.mig_enabled:
        busy = len({p.gi_id for p in gpu.processes if p.gi_id is not None})
        gis = len(gpu.gpu_instances)
        if held and gis:
            # No process seen (Slurm reports none; a job may be starting), yet its job uses at least one instance.
            busy = max(busy, 1)
        head = f"MIG {busy}/{gis} GI busy" if gis else "MIG, no GI"
        return (f"{head}: {_join(users, 2)}" if users else head), "mig"
    if gpu.mps is not None and gpu.mps.running:
        if users:
            return f"MPS: {_join(users)}", "mps"
        if workers_count:
            return f"MPS: {workers_count} clients", "mps"
        return ("MPS: no client seen" if held else "MPS: idle"), "mps"
    if users:
        return _join(users), "busy"
    if workers_count:
        return f"{workers_count} process{'es' if workers_count > 1 else ''}", "busy"
    if gpu.utilization_gpu:
        return "busy, no process visible", "unattributed"
    return "free", "free"
