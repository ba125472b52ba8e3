"""Run simulated nodes second by second into cluster frames, and write them to a recording file."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gputui.core.model import ClusterSnapshot, Event
from gputui.synth.node_sim import NodeSim

#: 2026-11-02T09:00:00Z: the fixed first frame of generated timelines, so output never depends on the clock.
DEFAULT_START = datetime(2026, 11, 2, 9, 0, 0, tzinfo=UTC).timestamp()

Step = tuple[ClusterSnapshot, list[Event]]


def run_nodes(nodes: Sequence[NodeSim], frames: int, t0: float, source: str) -> Iterator[Step]:
    """One cluster frame per second (``frames`` of them) with the events of that second."""
    for t in range(frames):
        snaps = []
        events: list[Event] = []
        for node in nodes:
            snap, evs = node.step(t)
            snaps.append(snap)
            events += evs
        yield ClusterSnapshot(t0 + t, tuple(snaps), source), events


def write_recording(
    path: str | os.PathLike[str],
    steps: Iterable[Step],
    meta: dict[str, Any],
    keyframe_interval: int = 300,
) -> tuple[int, int]:
    """Write frames and events to a fresh recording at ``path``; returns (frames, events) written.

    The file is built beside its destination and renamed over it, so a reader never sees half of
    one and regenerating never appends to an old one.
    """
    from gputui.sources.recording import RecordingWriter  # the recording format is a source-side module

    dest = Path(path)
    tmp = dest.with_name(dest.name + ".part")
    tmp.unlink(missing_ok=True)
    frames = n_events = 0
    try:
        with RecordingWriter(tmp, meta=meta, keyframe_interval=keyframe_interval, fsync_every=0) as writer:
            for snap, events in steps:
                for e in events:
                    writer.add_event(e)
                writer.append(snap)
                frames += 1
                n_events += len(events)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.chmod(tmp, 0o644)
    os.replace(tmp, dest)
    return frames, n_events
