"""The radar over a stretch of time, for `gputui idle`: a recording's frames up to a moment, or a live source
polled for one window. Both end with the radar's verdict on the last frame."""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gputui.core.errors import RecordingError
from gputui.core.idle import RadarResult
from gputui.core.model import ClusterSnapshot
from gputui.dashboard.radar.watch import RadarWatch
from gputui.jobs.records import JobRecord
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource


@dataclass(frozen=True, slots=True)
class Verdict:
    """The radar's result on the last frame, and the stretch of frames it saw."""

    result: RadarResult
    first_time: float  # the first frame read: no quiet run can be counted from before it
    frames: int
    skipped: int = 0  # damaged frames stepped over
    snapshot: ClusterSnapshot | None = None


def evaluate_replay(source: ReplaySource, watch: RadarWatch, at: float, lookback_s: float) -> Verdict:
    """Read the frames from ``lookback_s`` before ``at`` up to ``at`` (clipped to the recording) through the radar,
    with the recording's job events; damaged frames are stepped over (a gap, as the radar counts them)."""
    store = source.store
    first = store.locate(max(source.start_time, at - lookback_s))
    last = store.locate(at)
    events = store.events  # in time order
    times = [e.timestamp for e in events]
    t0 = store.timestamp(first)
    pos = bisect.bisect_right(times, t0)
    watch.restart_events(events[:pos])
    result: RadarResult | None = None
    snap: ClusterSnapshot | None = None
    skipped = 0
    for i in range(first, last + 1):
        try:
            snap = store.frame(i)
        except RecordingError:
            skipped += 1
            continue
        end = bisect.bisect_right(times, snap.timestamp, lo=pos)
        result = watch.step(snap, events[pos:end])
        pos = end
    if result is None:
        raise RecordingError(f"{source.description}: no intact frame between the window's start and its end")
    return Verdict(result, t0, last - first + 1 - skipped, skipped, snap)


def evaluate_live(
    source: Source,
    watch: RadarWatch,
    duration_s: float,
    interval_s: float,
    records: Callable[[ClusterSnapshot], Sequence[JobRecord]] | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Verdict:
    """Poll ``source`` every ``interval_s`` for ``duration_s`` (the window), feeding the radar each frame with the
    job queue's records (``records(snapshot)``, read after each poll)."""
    settle = getattr(source, "settle", None)  # a streaming source (SSH) waits for its hosts' first answers
    if settle is not None:
        settle()
    start = clock()
    frames = 0
    first_time: float | None = None
    while True:
        t = clock()
        snap = source.poll()
        if records is not None:
            watch.set_records(records(snap))
        result = watch.step(snap)
        frames += 1
        first_time = snap.timestamp if first_time is None else first_time
        if t - start >= duration_s:
            return Verdict(result, first_time, frames, 0, snap)
        sleep(max(0.0, min(interval_s - (clock() - t), duration_s - (clock() - start))))
