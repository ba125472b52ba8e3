"""The export's poll loop: a source polled every interval, the job queue ticked against it, the frame handed to
the collector; the next poll is scheduled from the start of the last and never before it finished."""

from __future__ import annotations

import time
from collections.abc import Callable

from gputui.core.errors import GputuiError
from gputui.core.scheduler.jobs import PENDING, RUNNING
from gputui.export.attribution import Attribution, from_events, from_records
from gputui.export.collector import FrameCollector
from gputui.export.frame import Frame
from gputui.jobs.backend import JobBackend
from gputui.record_loop import Waiter
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource


class ExportFeed:
    """One source and (optionally) its job queue, turned into frames."""

    def __init__(self, source: Source, jobs: JobBackend | None = None) -> None:
        self.source = source
        self.jobs = jobs
        self.error: str | None = None  # the last job-queue problem, if any (the export goes on without jobs)

    def frame(self) -> Frame:
        snap = self.source.poll()
        att = Attribution()
        now = snap.timestamp
        if self.jobs is not None:
            tick = self.jobs.tick(snap)
            snap, now, self.error = tick.snapshot, tick.clock, tick.error
            from_records(self.jobs.list(states=(PENDING, RUNNING)), att)
        if isinstance(self.source, ReplaySource):
            from_events(self.source.events_until(snap.timestamp), att)
        return Frame(snap, att, now)


def run_feed(
    feed: ExportFeed,
    collector: FrameCollector,
    stop: Waiter,
    *,
    interval: float,
    clock: Callable[[], float] = time.monotonic,
    on_frame: Callable[[Frame], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> int:
    """Poll until a stop request; returns the number of frames exported. A poll that fails for a reason the user
    can fix (a workload manager not answering) keeps the last frame served and is reported once per message."""
    frames = 0
    last_error: str | None = None
    while not stop.requested:
        t0 = clock()
        try:
            frame = feed.frame()
        except GputuiError as e:
            if on_error is not None and str(e) != last_error:
                on_error(str(e))
            last_error = str(e)
        else:
            last_error = None
            collector.update(frame)
            frames += 1
            if on_frame is not None:
                on_frame(frame)
        if stop.wait(t0 + interval - clock()):
            break
    return frames
