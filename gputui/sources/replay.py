"""Replay of a frame store: step, seek, play at 0.5x to 60x and pause, on an injected clock."""

from __future__ import annotations

from gputui.core.clock import Clock, SystemClock
from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, Event
from gputui.sources.base import FrameStore

MIN_SPEED = 0.5
MAX_SPEED = 60.0
SPEEDS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


class ReplaySource:
    """A source that plays recorded frames back; ``poll`` returns the frame for the replay time.

    While playing, replay time = anchor time + (clock - anchor clock) x speed, so a slow consumer
    skips frames instead of falling behind. At the end it pauses on the last frame.
    """

    def __init__(self, store: FrameStore, description: str, clock: Clock | None = None) -> None:
        self.store = store
        self.description = description
        self.clock = clock or SystemClock()
        self.position = 0
        self.speed = 1.0
        self.playing = False
        self._anchor_time = store.start_time
        self._anchor_clock = 0.0

    # -- state -------------------------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        return self.store.frame_count

    @property
    def start_time(self) -> float:
        return self.store.start_time

    @property
    def end_time(self) -> float:
        return self.store.end_time

    @property
    def time(self) -> float:
        """The recorded time of the current frame."""
        return self.store.timestamp(self.position)

    @property
    def at_end(self) -> bool:
        return self.position >= self.frame_count - 1

    def current(self) -> ClusterSnapshot:
        return self.store.frame(self.position)

    # -- the Source interface ----------------------------------------------------------------
    def poll(self) -> ClusterSnapshot:
        if self.playing:
            t = self._anchor_time + (self.clock.monotonic() - self._anchor_clock) * self.speed
            self.position = self.store.locate(t)
            if self.at_end or t >= self.end_time:
                self.position = self.frame_count - 1
                self.playing = False
        return self.current()

    def close(self) -> None:
        self.store.close()

    # -- controls ----------------------------------------------------------------------------
    def _reanchor(self) -> None:
        self._anchor_time = self.time
        self._anchor_clock = self.clock.monotonic()

    def play(self, speed: float | None = None) -> None:
        if speed is not None:
            self.set_speed(speed)
        if self.at_end:
            self.position = 0
        self.playing = True
        self._reanchor()

    def pause(self) -> None:
        if self.playing:
            self.poll()
        self.playing = False

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def set_speed(self, speed: float) -> None:
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise GputuiError(f"replay speed {speed:g}x is outside {MIN_SPEED:g}x to {MAX_SPEED:g}x")
        if self.playing:
            self.poll()
        self.speed = speed
        self._reanchor()

    def faster(self) -> float:
        nxt = [s for s in SPEEDS if s > self.speed]
        self.set_speed(nxt[0] if nxt else self.speed)
        return self.speed

    def slower(self) -> float:
        prev = [s for s in SPEEDS if s < self.speed]
        self.set_speed(prev[-1] if prev else self.speed)
        return self.speed

    def step(self, n: int = 1) -> ClusterSnapshot:
        """Move ``n`` frames (negative: back), stopping at either end; pauses playback."""
        self.playing = False
        target = min(max(self.position + n, 0), self.frame_count - 1)
        skip = getattr(self.store, "nearest_intact", None)
        if skip is not None and n:
            # Past a damaged stretch of a recording to the next frame that can be read (or stay put).
            found = skip(target, 1 if n > 0 else -1)
            target = found if found is not None else self.position
        self.position = target
        return self.current()

    def seek(self, t: float) -> ClusterSnapshot:
        """Go to the last frame at or before recorded time ``t``."""
        self.position = self.store.locate(t)
        self._reanchor()
        return self.current()

    def jump(self, seconds: float) -> ClusterSnapshot:
        return self.seek(self.time + seconds)

    def events_between(self, t0: float, t1: float) -> list[Event]:
        """Events with t0 < timestamp <= t1, in time order."""
        return [e for e in self.store.events if t0 < e.timestamp <= t1]

    def events_until(self, t: float) -> list[Event]:
        return [e for e in self.store.events if e.timestamp <= t]
