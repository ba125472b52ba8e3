"""The replay's controls: each changes the replay source and says which frame to show, also while paused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot
from gputui.dashboard.feed import Feed
from gputui.dashboard.outcomes import Notice
from gputui.dashboard.seek_time import parse_seek
from gputui.dashboard.state import DashboardState
from gputui.sources.replay import ReplaySource


@dataclass(frozen=True, slots=True)
class ReplayState:
    """What the replay bar shows; copied from the replay source after every change."""

    playing: bool
    speed: float
    position: int
    frame_count: int
    time: float
    start_time: float
    end_time: float


@dataclass(frozen=True, slots=True)
class ReplayMove:
    """A control's outcome: the frame now current, and whether the history must be read again (it jumped)."""

    snapshot: ClusterSnapshot
    refill: bool


class ReplayController:
    """Replay controls over ``feed``'s replay source; with a live source (no replay) every control is a no-op."""

    def __init__(self, feed: Feed, state: DashboardState) -> None:
        self.feed = feed
        self.replay = feed.replay
        self.state = state
        self._notices: list[Notice] = []
        self._warned = 0

    def take_notices(self) -> list[Notice]:
        """What the last controls ran into: a frame that cannot be decoded (the replay stayed where it was), damage
        the reader skipped. Each said once."""
        out, self._notices = self._notices, []
        warnings = getattr(getattr(self.replay, "store", None), "warnings", [])
        out += [Notice(w, "warning", 8) for w in warnings[self._warned :]]
        self._warned = len(warnings)
        return out

    def _control(self, change: Callable[[ReplaySource], object], *, moves: bool = False) -> ReplayMove | None:
        """Run ``change`` on the replay; ``moves``: it jumped, so the history is read again."""
        replay = self.replay
        if replay is None:
            return None
        with self.feed.lock:
            # A poll that started before this change must not overwrite its result.
            self.feed.generation += 1
            position = replay.position
            try:
                change(replay)
                snap = replay.current()
            except GputuiError as e:  # a frame the recording cannot give: say so and stay on the frame shown
                replay.position, replay.playing = position, False
                self._notices.append(Notice(f"{e}; stayed on frame {position}", "error", 8))
                return None
        history = self.state.history
        latest = history.latest
        if not moves and latest is not None and snap.timestamp < latest:
            history.cut_after(snap.timestamp)  # a step back: the samples before it are still right
            # ... unless they no longer fill the window (the rings keep a few steps back): read it again
            moves = history.latest is None or not history.covers(snap.timestamp, replay.start_time)
        if moves:
            history.clear()
        return ReplayMove(snap, moves)

    def replay_state(self) -> ReplayState | None:
        r = self.replay
        if r is None:
            return None
        with self.feed.lock:
            return ReplayState(r.playing, r.speed, r.position, r.frame_count, r.time, r.start_time, r.end_time)

    def toggle(self) -> ReplayMove | None:
        replay = self.replay
        restarts = replay is not None and not replay.playing and replay.at_end  # play at the end starts over
        return self._control(lambda r: r.toggle(), moves=restarts)

    def step(self, frames: int) -> ReplayMove | None:
        return self._control(lambda r: r.step(frames), moves=abs(frames) > 1)

    def jump(self, seconds: float) -> ReplayMove | None:
        return self._control(lambda r: r.jump(seconds), moves=True)

    def faster(self) -> ReplayMove | None:
        return self._control(lambda r: r.faster())

    def slower(self) -> ReplayMove | None:
        return self._control(lambda r: r.slower())

    def seek(self, text: str) -> tuple[ReplayMove | None, Notice | None]:
        """Go to the time ``text`` names (see seek_time); a notice when it cannot be read or lies outside."""
        replay = self.replay
        if replay is None:
            return None, None
        try:
            target = parse_seek(text, current=replay.time, start=replay.start_time, end=replay.end_time)
        except GputuiError as e:
            return None, Notice(str(e), "error", 6)
        notice = None
        if not replay.start_time <= target <= replay.end_time:
            notice = Notice("that time is outside the recording: went to the nearest end", timeout=4)
        move = self._control(lambda r: r.seek(min(max(target, r.start_time), r.end_time)), moves=True)
        return move, notice
