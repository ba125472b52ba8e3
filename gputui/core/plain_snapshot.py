"""A snapshot whose every string is plain text, made where snapshots enter rendering (the dashboard's state).

Checking costs one pass over the snapshot's strings and one regular-expression search over them joined; only a
snapshot that holds a control character is rebuilt (by :func:`~gputui.core.plain_text.plain_data`), so a clean
frame comes back as itself at a small fraction of a poll's cost.
"""

from __future__ import annotations

from collections.abc import Iterator

from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot
from gputui.core.plain_text import is_plain, plain_data


def _gpu_strings(g: GpuSnapshot) -> Iterator[str | None]:
    yield g.uuid
    yield g.name
    yield g.pci_bus_id
    yield g.performance_state
    yield g.compute_mode
    for p in g.processes:
        yield p.type
        yield p.user
        yield p.command
    for gi in g.gpu_instances:
        yield gi.profile
        for ci in gi.compute_instances:
            yield ci.profile
            yield ci.mig_uuid
    if g.mps is not None:
        yield g.mps.pipe_directory
        yield g.mps.log_directory
        for c in g.mps.clients:
            yield c.user
            yield c.command


def _strings(snap: ClusterSnapshot) -> Iterator[str | None]:
    yield snap.source
    for n in snap.nodes:
        yield n.name
        yield n.driver_version
        yield n.cuda_version
        yield n.state
        yield from n.features
        for share in n.shares:
            yield share[0]
        for g in n.gpus:
            yield from _gpu_strings(g)


def plain_snapshot(snap: ClusterSnapshot) -> ClusterSnapshot:
    """``snap`` itself when all its strings are plain, else a copy with every string sanitised."""
    if is_plain("".join(s for s in _strings(snap) if s)):
        return snap
    return plain_data(snap)


def plain_events(events: list[Event]) -> list[Event]:
    """Events (job names, messages from a recording) with their strings sanitised."""
    return [plain_data(e) for e in events]
