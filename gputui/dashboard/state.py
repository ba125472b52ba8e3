"""The state every view draws from: the snapshot, the GPU index, the selection, the filter, history, events
and the job queue's records, changed only through :meth:`DashboardState.apply` and the setters here."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gputui.core.idle import DEFAULT_THRESHOLD, DEFAULT_WINDOW_S
from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot, NodeSnapshot
from gputui.core.plain_snapshot import plain_events, plain_snapshot
from gputui.core.plain_text import sanitise
from gputui.dashboard.event_feed import EventFeed
from gputui.dashboard.gpu_filter import GpuFilter
from gputui.dashboard.gpu_index import gpu_rows
from gputui.dashboard.history import History
from gputui.dashboard.job_records import holders_by_gpu
from gputui.dashboard.radar.marks import idle_marks
from gputui.dashboard.radar.watch import RadarWatch
from gputui.sources.replay import ReplaySource

if TYPE_CHECKING:  # the job service loads after the first frame; this module before it
    from gputui.jobs.records import JobRecord


class DashboardState:
    """What the dashboard knows now; ``replay`` (None for a live source) gives the recorded events."""

    def __init__(
        self,
        description: str,
        replay: ReplaySource | None = None,
        idle_radar: tuple[int | None, float | None] = (None, None),
    ) -> None:
        self.description = sanitise(description)  # a file name the user gave may hold anything
        self.replay = replay
        self.snapshot: ClusterSnapshot | None = None
        self.gpus: dict[str, tuple[NodeSnapshot, GpuSnapshot]] = {}
        self.selected_key: str | None = None
        self.filter_text = ""
        self.history = History()
        self.event_feed = EventFeed()
        self.source_events: list[Event] = []  # the replay's own events the last frame brought (a recording keeps them)
        self.jobs_records: tuple[JobRecord, ...] = ()
        self.jobs_now = 0.0
        self.jobs_by_gpu: dict[str, str] = {}
        threshold, window = idle_radar
        # the idle radar: fed every frame, read by the overview and the idle view
        self.radar = RadarWatch(threshold or DEFAULT_THRESHOLD, DEFAULT_WINDOW_S if window is None else window)
        self.idle_by_gpu: dict[str, str] = {}  # 'node/index' -> 'idle 14m' for each GPU with an idle unit
        self.subtitle = self.description
        self._last_time: float | None = None

    # -- one frame -------------------------------------------------------------------------------
    def apply(self, snap: ClusterSnapshot) -> bool:
        """Take a new frame: the GPU index, the selection, the history and a replay's events.
        Returns whether the subtitle (source, GPU and node count) changed.

        This is where data enters the dashboard's rendering: every string of the frame is made plain text here
        (control characters shown as escapes, see core/plain_text.py), so no view can draw a raw one."""
        snap = plain_snapshot(snap)
        self.snapshot = snap
        rows = gpu_rows(snap)
        self.gpus = {key: (n, g) for key, n, g in rows}
        if self.selected_key not in self.gpus:
            self.selected_key = rows[0][0] if rows and self.selected_key is None else self.selected_key
        self.history.add(snap)
        self.source_events = []
        if self.replay is not None:
            self._feed_events(self._last_time, snap.timestamp)
        self._step_radar(snap)
        self._last_time = snap.timestamp
        nodes = len(snap.nodes)
        subtitle = f"{self.description} · {snap.gpu_count} GPUs on {nodes} node{'s' if nodes != 1 else ''}"
        changed, self.subtitle = subtitle != self.subtitle, subtitle
        return changed

    def _feed_events(self, previous: float | None, now: float) -> None:
        assert self.replay is not None
        if previous is None:
            self.event_feed.add(plain_events(self.replay.events_until(now)), recorded=True)
        elif now > previous:
            self.source_events = self.replay.events_between(previous, now)
            self.event_feed.add(plain_events(self.source_events), recorded=True)
        elif now < previous:
            self.event_feed.mark(f"↶ back to {time.strftime('%H:%M:%S', time.gmtime(now))}")

    def _step_radar(self, snap: ClusterSnapshot) -> None:
        previous = self._last_time
        if self.replay is not None and (previous is None or snap.timestamp < previous):
            # every string the radar keeps reaches the screen through its rows' sanitiser (radar/rows.py)
            self.radar.restart_events(self.replay.events_until(snap.timestamp))
            events: list[Event] = []
        else:
            events = self.source_events
        marks = idle_marks(self.radar.step(snap, events))
        if marks != self.idle_by_gpu:
            self.idle_by_gpu = marks  # a new object: the overview notices it and redraws the holder column

    def primed_radar(self, replay: ReplaySource) -> RadarWatch:
        """A fresh radar run over the two windows before the replay's position (on the history thread, after a
        jump: frames skipped by a jump were never shown to the radar)."""
        from gputui.dashboard.radar.evaluate import evaluate_replay

        watch = RadarWatch(self.radar.threshold, self.radar.window_s)
        watch.set_records(self.jobs_records)
        evaluate_replay(replay, watch, replay.time, 2 * watch.window_s)
        return watch

    def take_radar(self, watch: object) -> None:
        """Use a radar :meth:`primed_radar` made (what a HistoryRead carries).

        It read the recording's frames; if the frame it ended on is drawn already (the poll after a jump came
        first, with the queue's simulated jobs drawn in), it judges that frame too, as it would had the poll come
        second: what the idle view shows does not depend on which thread answered first."""
        if isinstance(watch, RadarWatch) and watch.last is not None:
            watch.set_records(self.jobs_records)
            snap = self.snapshot
            if snap is not None and snap.timestamp == watch.last.timestamp:
                watch.step(snap)
            self.radar = watch
            self.idle_by_gpu = idle_marks(watch.last)

    def add_events(self, events: Sequence[Event]) -> None:
        self.event_feed.add(plain_events(list(events)))

    # -- selection and filter --------------------------------------------------------------------
    def selected_gpu(self) -> tuple[NodeSnapshot | None, GpuSnapshot | None]:
        hit = self.highlighted_gpu()
        return hit if hit is not None else (None, None)

    def highlighted_gpu(self) -> tuple[NodeSnapshot, GpuSnapshot] | None:
        """The GPU the user has selected (the overview's cursor, the detail view's GPU)."""
        return self.gpus.get(self.selected_key) if self.selected_key is not None else None

    def gpu_filter(self) -> GpuFilter:
        jobs = {key: [label] for key, label in self.jobs_by_gpu.items()}
        for key, mark in self.idle_by_gpu.items():  # '/idle' finds the GPUs the idle radar flags
            jobs.setdefault(key, []).append(mark)
        return GpuFilter(self.filter_text, jobs)

    def visible_gpus(self) -> list[tuple[str, NodeSnapshot, GpuSnapshot]]:
        """The GPUs the filter lets through, with their keys, in the snapshot's order."""
        wanted = self.gpu_filter()
        return [(k, n, g) for k, (n, g) in self.gpus.items() if not wanted or wanted.matches(n.name, g)]

    def set_filter(self, text: str) -> bool:
        """Whether the filter changed."""
        changed, self.filter_text = text != self.filter_text, text
        return changed

    def step_selection(self, order: list[str], delta: int) -> None:
        """Select the next (or previous) of ``order``, the GPUs as a view lists them."""
        if order:
            i = order.index(self.selected_key) if self.selected_key in order else -1
            self.selected_key = order[(i + delta) % len(order)]

    # -- the job queue ---------------------------------------------------------------------------
    def set_records(self, records: tuple[JobRecord, ...], now: float | None = None) -> None:
        self.jobs_records = records
        if now is not None:
            self.jobs_now = now
        self.radar.set_records(records)
        holders = holders_by_gpu(records)
        if holders != self.jobs_by_gpu:
            self.jobs_by_gpu = holders  # a new object: the overview notices it and redraws the holder column
