"""Polling on one long-lived thread: the source (and the job service's tick) are read off the UI thread.

The thread sleeps until a poll is due, polls and posts the result; the app schedules the next
poll only when it has handled that result, so a slow source never stacks polls, and a request
made while a poll is running is answered by the scheduling after it. One thread for the whole
session costs far less than a Textual worker and a timer per poll (about 0.15 % of a core at 1 Hz).
A replay control bumps the generation, so that a poll started before it is dropped.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.message import Message

from gputui.core.errors import GputuiError
from gputui.dashboard.history import WINDOW_S, History, frames_for_window
from gputui.ui.messages import HistoryFilled, PollFailed, SnapshotPolled

if TYPE_CHECKING:
    from gputui.ui.app import GputuiApp

MIN_REPLAY_INTERVAL = 0.1  # seconds between polls while playing fast: at most 10 redraws a second


class Poller(threading.Thread):
    """Runs ``poll`` whenever it comes due; ``due`` None means no poll is scheduled (a paused replay)."""

    def __init__(self, poll: Callable[[], Message], post: Callable[[Message], object]) -> None:
        super().__init__(name="gputui-poll", daemon=True)
        self._poll = poll
        self._post = post
        self._cond = threading.Condition()
        self.due: float | None = None
        self.busy = False
        self._stopped = False

    def poll_at(self, due: float | None) -> None:
        """Poll at monotonic time ``due`` (None: not until asked again); ignored while a poll runs."""
        with self._cond:
            if self.busy:
                return  # the app schedules again when it has the result of the poll now running
            self.due = due
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def idle(self) -> bool:
        """True when no poll runs and none is due now."""
        with self._cond:
            return not self.busy and (self.due is None or self.due > time.monotonic())

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until ``idle()`` (for tests and benchmarks); False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.busy or (self.due is not None and self.due <= time.monotonic()):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (self.due is None or self.due > time.monotonic()):
                    self._cond.wait(None if self.due is None else max(0.0, self.due - time.monotonic()))
                if self._stopped:
                    return
                self.due = None
                self.busy = True
            message: Message | None = None
            try:
                message = self._poll()
            finally:
                with self._cond:
                    # Not busy before the result is posted: the app's handler schedules the next poll.
                    self.busy = False
                    if message is not None:
                        self._post(message)
                    self._cond.notify_all()


class Polling:
    """Mixed into the app: starts, schedules and receives polls, and refills the history of a replay."""

    _poller: Poller | None = None

    @property
    def _app(self) -> GputuiApp:
        return cast("GputuiApp", self)

    def _start_poll(self) -> None:
        """Start the polling thread with a first poll right away."""
        if self._poller is None:
            self._poller = Poller(self._poll_once, self._app.post_message)
            self._poller.start()
        self._poller.poll_at(time.monotonic())

    def _stop_poll(self) -> None:
        if self._poller is not None:
            self._poller.stop()

    def _poll_once(self) -> Message:
        """One poll, on the polling thread; returns the message for the app."""
        app = self._app
        with app.source_lock:
            generation = app.generation
            try:
                snapshot = app.source.poll()
            except GputuiError as e:
                return PollFailed(str(e), generation)
            except Exception as e:  # a bug in a source: shown, and polling goes on
                return PollFailed(f"polling failed: {e!r}", generation)
        tick = app.jobs_tick(snapshot)
        if tick is not None:
            snapshot = tick.snapshot  # simulated jobs drawn in
        return SnapshotPolled(snapshot, generation, tick)

    async def wait_for_polls(self) -> None:
        """Return once no poll is running or due now (for tests and benchmarks: never blocks the UI)."""
        poller = self._poller
        if poller is not None and not poller.idle():
            await asyncio.to_thread(poller.wait_idle)

    def _next_interval(self) -> float | None:
        """Seconds to the next poll; for a paused replay None (its frame changes only by the user's keys), unless
        it has a job queue, which another process may change: then the queue is looked at each interval."""
        app = self._app
        if app.replay is not None:
            if not app.replay.playing:
                return app.poll_interval if app.jobs_service is not None else None
            return max(MIN_REPLAY_INTERVAL, min(app.poll_interval, 0.5 / app.replay.speed))
        return app.poll_interval

    def schedule_poll(self, delay: float | None = None) -> None:
        """Poll again after ``delay`` (default: the interval for the current state), replacing what was due."""
        if self._poller is None:
            return
        if delay is None:
            delay = self._next_interval()
        self._poller.poll_at(None if delay is None else time.monotonic() + max(0.0, delay))

    def on_poll_failed(self, message: PollFailed) -> None:
        self._app.notify(message.error, severity="error", timeout=8)
        self._app.open_jobs_later()  # normally after the first frame, which a failing source may never give
        self.schedule_poll()

    def on_snapshot_polled(self, message: SnapshotPolled) -> None:
        app = self._app
        app.poll_count += 1
        tick = message.tick
        if tick is not None:
            app.apply_jobs_tick(tick)
        if message.generation == app.generation:
            app.apply_snapshot(message.snapshot)
            app.record_applied(message.snapshot, tick.events if tick is not None else ())
            if app.poll_count == 1:
                app.call_after_refresh(app.first_frame_drawn)
        self.schedule_poll()

    # -- history of a replay -------------------------------------------------------------------
    def refill_history(self) -> None:
        """Read the minutes before the replay's position from the recording, in a thread."""
        if self._app.replay is not None:
            self._app.run_worker(self._read_history, thread=True, exclusive=True, exit_on_error=False, group="history")

    def _read_history(self) -> None:
        app = self._app
        replay = app.replay
        assert replay is not None
        history = History()
        with app.source_lock:
            generation = app.generation
            end = replay.position
            start = replay.store.locate(replay.time - WINDOW_S)
            try:
                for i in frames_for_window(start, end):
                    history.add(replay.store.frame(i))
            except GputuiError as e:
                app.post_message(PollFailed(f"history: {e}", generation))
                return
        app.post_message(HistoryFilled(history.rings, history.latest, generation))

    def on_history_filled(self, message: HistoryFilled) -> None:
        app = self._app
        if message.generation == app.generation:
            app.history.replace(message.rings, message.latest)
            app.refresh_view()
