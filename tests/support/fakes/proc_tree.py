"""Write a directory laid out like /proc, so process and MPS detection run on known data."""

from __future__ import annotations

from pathlib import Path

from gputui.core.model import NodeSnapshot

UIDS = {"root": 0}


def uid_of(user: str | None) -> int:
    """A stable uid per user name (root is 0), remembered so that ``user_of`` maps it back."""
    if user is None:
        return 65534
    return UIDS.setdefault(user, 1000 + len(UIDS))


def user_of(uid: int) -> str | None:
    for name, u in UIDS.items():
        if u == uid:
            return name
    return None


def write_process(
    root: Path,
    pid: int,
    argv: list[str],
    *,
    user: str | None = "root",
    comm: str | None = None,
    ppid: int = 1,
    environ: dict[str, str] | None = None,
) -> None:
    """One /proc/PID entry; ``environ`` None makes the environment unreadable, as for another user's process."""
    d = root / str(pid)
    d.mkdir(parents=True, exist_ok=True)
    name = (comm or Path(argv[0]).name)[:15]
    (d / "comm").write_text(name + "\n")
    (d / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in argv))
    uid = uid_of(user)
    (d / "status").write_text(f"Name:\t{name}\nPid:\t{pid}\nPPid:\t{ppid}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n")
    (d / "stat").write_text(f"{pid} ({name}) S {ppid} {pid} {pid} 0 -1\n")
    if environ is None:
        (d / "environ").mkdir(exist_ok=True)  # reading it fails, like EACCES on a real /proc
    else:
        (d / "environ").write_bytes(b"".join(f"{k}={v}".encode() + b"\0" for k, v in environ.items()))


def write_node(root: Path, node: NodeSnapshot, mps_env_readable: bool = True) -> None:
    """Every process of ``node`` with its user and command, MPS clients with their thread percentage, and
    the MPS control daemons and servers its GPUs name (CUDA_VISIBLE_DEVICES from the GPUs each serves)."""
    daemons: dict[int, dict] = {}
    for g in node.gpus:
        m = g.mps
        if m is not None and m.running and m.control_pid is not None:
            d = daemons.setdefault(m.control_pid, {"gpus": [], "mps": m, "user": None})
            d["gpus"].append(g.index)
            for c in m.clients:
                d["user"] = d["user"] or c.user
    servers = {m["mps"].server_pid: pid for pid, m in daemons.items() if m["mps"].server_pid is not None}
    clients = {c.pid: c for g in node.gpus if g.mps for c in g.mps.clients}
    for g in node.gpus:
        for p in g.processes:
            if p.pid in servers:
                continue
            env = {"HOME": "/home/x"}
            c = clients.get(p.pid)
            if c is not None and c.active_thread_percentage is not None:
                env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] = str(c.active_thread_percentage)
            write_process(root, p.pid, (p.command or "python").split(), user=p.user, environ=env)
    for pid, d in daemons.items():
        m = d["mps"]
        env = {
            "CUDA_MPS_PIPE_DIRECTORY": m.pipe_directory or "/tmp/nvidia-mps",
            "CUDA_MPS_LOG_DIRECTORY": m.log_directory or "/var/log/nvidia-mps",
            "CUDA_VISIBLE_DEVICES": ",".join(map(str, d["gpus"])),
        }
        write_process(
            root, pid, ["nvidia-cuda-mps-control", "-d"], user="root", environ=env if mps_env_readable else None
        )
        if m.server_pid is not None:
            write_process(root, m.server_pid, ["nvidia-cuda-mps-server"], user=d["user"], ppid=pid, environ=None)
