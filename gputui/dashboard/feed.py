"""The feed: the source polled on one long-lived thread, each poll followed by the job queue's tick.

The thread sleeps until a poll is due, polls and delivers the result; the shell schedules the next poll only
when it has handled that result, so a slow source never stacks polls, and a request made while a poll is
running is answered by the scheduling after it. One thread for the whole session costs far less than a
worker and a timer per poll (about 0.15 % of a core at 1 Hz). A replay control bumps the generation, so
that a poll started before it is dropped.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot
from gputui.dashboard.history import WINDOW_S, History, Sample, frames_for_window
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource

if TYPE_CHECKING:  # a type only: the job queue's modules load when it opens
    from gputui.dashboard.job_ticks import JobsTick

MIN_REPLAY_INTERVAL = 0.1  # seconds between polls while playing fast: at most 10 redraws a second


@dataclass(frozen=True, slots=True)
class Polled:
    """A poll's frame (with simulated jobs drawn in when the queue ticked) and the tick itself."""

    snapshot: ClusterSnapshot
    generation: int
    tick: JobsTick | None = None


@dataclass(frozen=True, slots=True)
class PollFailed:
    """A poll raised a user-level error (source gone, file damaged): shown, and polling goes on."""

    error: str
    generation: int


@dataclass(frozen=True, slots=True)
class HistoryRead:
    """The minutes before a replay's new position, read from the recording after a jump or a seek."""

    rings: dict[str, deque[Sample]]
    latest: float | None
    generation: int
    radar: object = None  # the idle radar run over the frames before the position (see Feed.prime_radar)


FeedResult = Polled | PollFailed | HistoryRead


class Poller(threading.Thread):
    """Runs ``poll`` whenever it comes due; ``due`` None means no poll is scheduled (a paused replay)."""

    def __init__(self, poll: Callable[[], FeedResult], deliver: Callable[[FeedResult], object]) -> None:
        super().__init__(name="gputui-poll", daemon=True)
        self._poll = poll
        self._deliver = deliver
        self._cond = threading.Condition()
        self.due: float | None = None
        self.busy = False
        self._stopped = False

    def poll_at(self, due: float | None) -> None:
        """Poll at monotonic time ``due`` (None: not until asked again); ignored while a poll runs."""
        with self._cond:
            if self.busy:
                return  # the shell schedules again when it has the result of the poll now running
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
            result: FeedResult | None = None
            try:
                result = self._poll()
            finally:
                with self._cond:
                    # Not busy before the result is delivered: the shell's handler schedules the next poll.
                    self.busy = False
                    if result is not None:
                        self._deliver(result)
                    self._cond.notify_all()


class Feed:
    """One source, polled on the poll thread; ``tick`` (the job queue's pass, or None) runs after each poll,
    ``has_queue`` says whether a job queue is attached (a paused replay then still polls, for the queue)."""

    def __init__(
        self,
        source: Source,
        deliver: Callable[[FeedResult], object],
        *,
        poll_interval: float = 1.0,
        tick: Callable[[ClusterSnapshot], JobsTick | None] = lambda snapshot: None,
        has_queue: Callable[[], bool] = lambda: False,
    ) -> None:
        self.source = source
        self.replay: ReplaySource | None = source if isinstance(source, ReplaySource) else None
        self.deliver = deliver
        self.poll_interval = max(0.05, poll_interval)
        self.tick = tick
        self.has_queue = has_queue
        self.lock = threading.Lock()  # the poll thread and replay controls share the source
        self.generation = 0
        self.poll_count = 0
        self._poller: Poller | None = None
        # Reads the recording before the replay's position into a fresh idle radar, with the history.
        self.prime_radar: Callable[[ReplaySource], object] | None = None
        # The first poll's result, held for take_first while hold_first is set (see start).
        self._first_cond = threading.Condition()
        self._hold_first = False
        self._first: FeedResult | None = None

    def start(self, *, hold_first: bool = False) -> None:
        """Start the polling thread with a first poll right away. With ``hold_first`` the first result is kept for
        ``take_first`` (the shell draws it into its first frame) instead of delivered; every later one is
        delivered, and so is the first if ``take_first`` gave up waiting for it."""
        if self._poller is None:
            with self._first_cond:
                self._hold_first = hold_first
            self._poller = Poller(self.poll_once, self._deliver)
            self._poller.start()
        self._poller.poll_at(time.monotonic())

    def _deliver(self, result: FeedResult) -> None:
        with self._first_cond:
            if self._hold_first:
                self._hold_first = False
                self._first = result
                self._first_cond.notify_all()
                return
        self.deliver(result)

    def take_first(self, timeout: float) -> FeedResult | None:
        """The first poll's result, held by ``start(hold_first=True)``, waiting at most ``timeout`` seconds for it;
        None if it did not come by then (it is then delivered when it comes) or was taken or delivered already."""
        with self._first_cond:
            if self._hold_first:
                self._first_cond.wait_for(lambda: not self._hold_first, timeout)
            self._hold_first = False
            result, self._first = self._first, None
        return result

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.stop()

    def poll_once(self) -> FeedResult:
        """One poll, on the polling thread: the source, then the job queue's tick."""
        with self.lock:
            generation = self.generation
            try:
                snapshot = self.source.poll()
            except GputuiError as e:
                return PollFailed(str(e), generation)
            except Exception as e:  # a bug in a source: shown, and polling goes on
                return PollFailed(f"polling failed: {e!r}", generation)
        tick = self.tick(snapshot)
        if tick is not None:
            snapshot = tick.snapshot  # simulated jobs drawn in
        return Polled(snapshot, generation, tick)

    async def wait_for_polls(self) -> None:
        """Return once no poll is running or due now (for tests and benchmarks: never blocks the event loop)."""
        poller = self._poller
        if poller is not None and not poller.idle():
            await asyncio.to_thread(poller.wait_idle)

    def next_interval(self) -> float | None:
        """Seconds to the next poll; for a paused replay None (its frame changes only by the user's keys), unless
        it has a job queue, which another process may change: then the queue is looked at each interval."""
        replay = self.replay
        if replay is not None:
            if not replay.playing:
                return self.poll_interval if self.has_queue() else None
            return max(MIN_REPLAY_INTERVAL, min(self.poll_interval, 0.5 / replay.speed))
        return self.poll_interval

    def schedule(self, delay: float | None = None) -> None:
        """Poll again after ``delay`` (default: the interval for the current state), replacing what was due."""
        if self._poller is None:
            return
        if delay is None:
            delay = self.next_interval()
        self._poller.poll_at(None if delay is None else time.monotonic() + max(0.0, delay))

    def read_history(self) -> PollFailed | HistoryRead:
        """The minutes before the replay's position, read from the recording (in a thread: it reads the file)."""
        replay = self.replay
        assert replay is not None
        history = History()
        with self.lock:
            generation = self.generation
            end = replay.position
            start = replay.store.locate(replay.time - WINDOW_S)
            try:
                for i in frames_for_window(start, end):
                    history.add(replay.store.frame(i))
                radar = self.prime_radar(replay) if self.prime_radar is not None else None
            except GputuiError as e:
                return PollFailed(f"history: {e}", generation)
        return HistoryRead(history.rings, history.latest, generation, radar)
