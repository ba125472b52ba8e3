"""The time a queue's jobs live on, and when a scheduling pass may judge them.

A live machine's queue runs on the wall clock (the snapshot's time). A replay's queue lives on the replay's
timeline, by these rules:

- The clock never leaves the recording's span, and never runs ahead of the frame on screen: each pass moves it
  to the frame's time.
- It never runs backwards while a job waits or runs. When the replay is behind the clock (a seek or a step
  backwards, a replay started over after its end, a dashboard opened at an earlier frame), the queue is
  *paused*: no job starts, ends or fails, and no job is judged against that older frame, until the replay
  reaches the clock again.
- A queue with no job waiting or running has nothing to protect, so its clock follows the frame either way.
- A queue without a stored clock starts at the frame first shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClockStep:
    """One pass's time: ``clock`` is the queue's time; ``judge`` is False while the queue is paused."""

    clock: float
    judge: bool


class QueueClock:
    """The clock of one queue; ``stored`` reads the clock saved by an earlier session, ``active`` says whether any
    job waits or runs (asked only when the replay is behind the clock)."""

    def __init__(
        self,
        simulated: bool,
        stored: Callable[[], float | None],
        active: Callable[[], bool],
        span: tuple[float, float] | None = None,
    ) -> None:
        self.simulated = simulated
        self.span = span
        self._stored = stored
        self._active = active
        self.value: float | None = None

    def within(self, t: float) -> float:
        """``t`` moved into the recording's span (unchanged when the span is unknown)."""
        if self.span is None:
            return t
        start, end = self.span
        return min(max(t, start), end)

    def reset(self) -> None:
        """Forget the clock (this process gave the queue up or took it over): the next pass reads the stored one."""
        self.value = None

    def saved(self) -> float | None:
        """The clock an earlier session saved, moved into the span."""
        stored = self._stored()
        return None if stored is None else self.within(stored)

    def resume_at(self, first: float) -> float:
        """Where a replay opens for this queue: at its saved clock, else at ``first`` (the first frame)."""
        saved = self.saved()
        return first if saved is None else saved

    def advance(self, t: float) -> ClockStep:
        """The clock for a pass on a frame of time ``t``."""
        if not self.simulated:
            self.value = t
            return ClockStep(t, True)
        t = self.within(t)
        if self.value is None:
            self.value = self.saved()
        if self.value is None or t >= self.value or not self._active():
            self.value = t
            return ClockStep(t, True)
        return ClockStep(self.value, False)
