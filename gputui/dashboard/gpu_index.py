"""The GPU index: every GPU of a snapshot under its row key 'node/index', the key every view and the history use."""

from __future__ import annotations

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot


def gpu_key(node: str, index: int) -> str:
    return f"{node}/{index}"


_last_rows: list[tuple[ClusterSnapshot, list[tuple[str, NodeSnapshot, GpuSnapshot]]]] = []


def gpu_rows(snap: ClusterSnapshot) -> list[tuple[str, NodeSnapshot, GpuSnapshot]]:
    """Every GPU of ``snap`` with its row key 'node/index'; a repeated key (a faulty source) gets '#n' added.

    The app, the table and the history all ask for the same snapshot's rows: the last answer is kept.
    """
    if _last_rows and _last_rows[0][0] is snap:
        return _last_rows[0][1]
    out: list[tuple[str, NodeSnapshot, GpuSnapshot]] = []
    seen: set[str] = set()
    for n in snap.nodes:
        for g in n.gpus:
            key = gpu_key(n.name, g.index)
            if key in seen:
                key = f"{key}#{len(out)}"
            seen.add(key)
            out.append((key, n, g))
    _last_rows[:] = [(snap, out)]
    return out
