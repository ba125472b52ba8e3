"""The headless recording loop: poll, append, wait; clock and wait injected, stopped by SIGTERM / SIGINT.

A live source is polled every ``interval`` seconds, the next poll scheduled from the start of the last
one but never before it finished (a slow poll delays the next, polls never pile up). A replay (a
recording, an nvidia-smi log) is re-recorded frame by frame with its own timestamps and events, as fast
as it can be read or, with an interval, one frame per interval.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gputui.core.model import ClusterSnapshot
from gputui.recorder import Recorder
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource


class Waiter(Protocol):
    """Waits between polls; ``wait`` returns True (early) once a stop was requested."""

    requested: bool

    def wait(self, seconds: float) -> bool: ...


class StopSignal:
    """A stop request that wakes the wait between polls at once, set by a signal handler or another thread.

    A signal handler only sets the flag and writes a byte to a pipe the wait selects on: a poll or a
    write in progress is never interrupted, so the file is always closed between records.
    """

    def __init__(self) -> None:
        self.requested = False
        self.signal_name: str | None = None
        self._r, self._w = os.pipe()
        os.set_blocking(self._w, False)

    def request(self, signum: int | None = None, _frame: Any = None) -> None:
        self.requested = True
        if signum is not None:
            self.signal_name = signal.Signals(signum).name
        with contextlib.suppress(BlockingIOError):
            os.write(self._w, b"x")

    def wait(self, seconds: float) -> bool:
        if not self.requested and seconds > 0:
            select.select([self._r], [], [], seconds)
        return self.requested

    def install(self, signums: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> Callable[[], None]:
        """Route ``signums`` to :meth:`request` (main thread only); returns a function restoring the old handlers."""
        old = {s: signal.signal(s, self.request) for s in signums}

        def restore() -> None:
            for s, h in old.items():
                signal.signal(s, h)

        return restore

    def close(self) -> None:
        for fd in (self._r, self._w):
            with contextlib.suppress(OSError):
                os.close(fd)


@dataclass
class RecordStats:
    frames: int = 0
    skipped: int = 0  # damaged frames of a re-recorded recording
    events: int = 0
    stopped_by: str | None = None  # "signal", "duration", "end of source"


OnFrame = Callable[[int, ClusterSnapshot], None]


def record_live(
    source: Source,
    recorder: Recorder,
    stop: Waiter,
    *,
    interval: float,
    duration: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_frame: OnFrame | None = None,
) -> RecordStats:
    """Poll ``source`` until a stop request or until ``duration`` seconds have passed since the first poll."""
    stats = RecordStats()
    start = clock()
    while True:
        t0 = clock()
        if stats.frames and duration is not None and t0 - start >= duration:
            stats.stopped_by = "duration"
            break
        snap = source.poll()
        stats.events += len(recorder.append(snap))
        stats.frames += 1
        if on_frame is not None:
            on_frame(stats.frames, snap)
        if stop.requested or stop.wait(t0 + interval - clock()):
            stats.stopped_by = "signal"
            break
    return stats


def record_replay(
    replay: ReplaySource,
    recorder: Recorder,
    stop: Waiter,
    *,
    interval: float | None = None,
    duration: float | None = None,
    on_frame: OnFrame | None = None,
) -> RecordStats:
    """Re-record every frame of ``replay`` (those within ``duration`` of its first), with its events."""
    recorder.derive_mps_events = False  # the replay brings its own events
    stats = RecordStats(stopped_by="end of source")
    store = replay.store
    events = sorted(store.events, key=lambda e: e.timestamp)
    first = store.timestamp(0)
    k = 0
    intact = getattr(store, "intact", None)
    for i in range(store.frame_count):
        t = store.timestamp(i)
        if duration is not None and t - first >= duration and i:
            stats.stopped_by = "duration"
            break
        if intact is not None and not intact(i):
            stats.skipped += 1  # a damaged frame of a recording: the reader's warning names it
            continue
        snap = store.frame(i)
        recorder.append(snap)
        stats.frames += 1
        while k < len(events) and events[k].timestamp <= t:
            recorder.add_event(events[k])
            stats.events += 1
            k += 1
        if on_frame is not None:
            on_frame(stats.frames, snap)
        last = i == store.frame_count - 1
        if stop.requested or (interval and not last and stop.wait(interval)):
            stats.stopped_by = "signal"
            break
    if stats.stopped_by == "end of source":
        for e in events[k:]:  # events after the last frame belong to the whole recording
            recorder.add_event(e)
            stats.events += 1
    return stats


def record(
    source: Source,
    recorder: Recorder,
    stop: Waiter,
    *,
    interval: float | None,
    duration: float | None = None,
    default_interval: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
    on_frame: OnFrame | None = None,
) -> RecordStats:
    """Record a live source or re-record a replay, whichever ``source`` is."""
    if isinstance(source, ReplaySource):
        return record_replay(source, recorder, stop, interval=interval, duration=duration, on_frame=on_frame)
    return record_live(
        source,
        recorder,
        stop,
        interval=default_interval if interval is None else interval,
        duration=duration,
        clock=clock,
        on_frame=on_frame,
    )
