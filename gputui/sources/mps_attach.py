"""Decide each GPU's MPS state from the daemons found in /proc and the MPS clients NVML reports."""

from __future__ import annotations

from gputui.core.model import MpsClient, MpsDaemon
from gputui.procfs.mps_detect import MpsControlProc, MpsScan


def mps_for_gpu(
    scan: MpsScan | None,
    index: int,
    uuid: str | None,
    mig_uuids: tuple[str, ...],
    compute_pids: frozenset[int],
    clients: tuple[MpsClient, ...],
) -> MpsDaemon | None:
    """The GPU's MPS daemon; ``running=False`` only when every daemon is known not to serve it, None when unknown.

    A daemon serves the GPU when its CUDA_VISIBLE_DEVICES names it (unset: every GPU), or when one of its
    servers is among the GPU's compute processes, which also works when its environment is unreadable.
    """
    daemons = scan.daemons if scan is not None else ()
    serving = [d for d in daemons if any(s.pid in compute_pids for s in d.servers)]
    serving += [d for d in daemons if d not in serving and d.serves(index, uuid, mig_uuids)]
    if serving:
        d = serving[0]
        return MpsDaemon(
            running=True,
            control_pid=d.pid,
            server_pid=_server_pid(d, compute_pids),
            pipe_directory=d.pipe_directory,
            log_directory=d.log_directory,
            clients=clients,
        )
    if clients:
        # NVML sees MPS clients but no daemon is visible here (another PID namespace, hidden /proc)
        servers = [s.pid for s in (scan.orphan_servers if scan else ()) if s.pid in compute_pids]
        return MpsDaemon(running=True, server_pid=servers[0] if len(servers) == 1 else None, clients=clients)
    if scan is None or not scan.complete:
        return None
    if any(d.serves(index, uuid, mig_uuids) is None for d in daemons):
        return None
    return MpsDaemon(running=False)


def _server_pid(d: MpsControlProc, compute_pids: frozenset[int]) -> int | None:
    on_gpu = [s.pid for s in d.servers if s.pid in compute_pids]
    if on_gpu:
        return on_gpu[0]
    return d.servers[0].pid if len(d.servers) == 1 else None
