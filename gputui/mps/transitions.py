"""MPS daemon changes between two snapshots, as mps_started / mps_stopped events."""

from __future__ import annotations

from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot, NodeSnapshot

DaemonKey = tuple[str, object]  # ("pid", control pid) or ("pipe", pipe directory)


def _key(g: GpuSnapshot) -> DaemonKey | None:
    m = g.mps
    if m is None or not m.running or g.lost:
        return None
    if m.control_pid is not None:
        return ("pid", m.control_pid)
    if m.pipe_directory is not None:
        return ("pipe", m.pipe_directory)
    return None  # clients seen, daemon unknown: nothing to name


def _daemons(node: NodeSnapshot) -> dict[DaemonKey, list[GpuSnapshot]]:
    out: dict[DaemonKey, list[GpuSnapshot]] = {}
    for g in node.gpus:
        k = _key(g)
        if k is not None:
            out.setdefault(k, []).append(g)
    return out


def _event(kind: str, t: float, node: str, gpus: list[GpuSnapshot]) -> Event:
    m = gpus[0].mps
    assert m is not None
    word = "started" if kind == "mps_started" else "stopped"
    pid = f" (pid {m.control_pid})" if m.control_pid is not None else ""
    indices = tuple(g.index for g in gpus)
    data = (("pipe_directory", m.pipe_directory),) if m.pipe_directory else ()
    return Event(
        t,
        kind,
        f"MPS control daemon {word} on {node}{pid} for GPU {','.join(map(str, indices))}",
        node=node,
        gpus=indices,
        data=data,
    )


def mps_events(prev: ClusterSnapshot | None, cur: ClusterSnapshot) -> list[Event]:
    """Daemons that appeared or went away on nodes present in both snapshots.

    A daemon counts as gone only when every GPU it served is known again (not lost, MPS state known),
    so a GPU that merely stopped answering does not make up a stop. A restart is a stop and a start.
    """
    if prev is None:
        return []
    before = {n.name: n for n in prev.nodes}
    out: list[Event] = []
    for node in cur.nodes:
        old = before.get(node.name)
        if old is None:
            continue
        was, now = _daemons(old), _daemons(node)
        known = {g.index for g in node.gpus if g.mps is not None and not g.lost}
        for k, gpus in was.items():
            if k not in now and all(g.index in known for g in gpus):
                out.append(_event("mps_stopped", cur.timestamp, node.name, gpus))
        for k, gpus in now.items():
            if k not in was:
                out.append(_event("mps_started", cur.timestamp, node.name, gpus))
    return out
