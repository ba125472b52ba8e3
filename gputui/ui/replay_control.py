"""Replay key actions of the app: each changes the replay source and redraws at once, also while paused."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from gputui.core.errors import GputuiError
from gputui.dashboard.seek_time import parse_seek
from gputui.sources.replay import ReplaySource
from gputui.ui.replay_bar import ReplayBar, ReplayState

if TYPE_CHECKING:
    from gputui.ui.app import GputuiApp


class ReplayControls:
    """Mixed into the app; ``replay`` is None for live sources, and then every method here is a no-op."""

    replay: ReplaySource | None
    source_lock: threading.Lock
    generation: int

    @property
    def _host(self) -> GputuiApp:
        return cast("GputuiApp", self)

    def _control(self, change: Callable[[ReplaySource], object], *, moves: bool = False) -> None:
        """Run ``change`` on the replay and show its frame; ``moves``: it jumped, so the history is read again."""
        replay = self.replay
        if replay is None:
            return
        with self.source_lock:
            # A poll that started before this change must not overwrite its result.
            self.generation += 1
            change(replay)
            snap = replay.current()
        host = self._host
        latest = host.history.latest
        if not moves and latest is not None and snap.timestamp < latest:
            host.history.cut_after(snap.timestamp)  # a step back: the samples before it are still right
            moves = host.history.latest is None
        if moves:
            host.history.clear()
        if host.jobs_service is not None:
            # The poll thread draws the frame with the queue's jobs in it; drawing the raw frame here first
            # would make them blink out for a moment.
            host.schedule_poll(0)
        else:
            host.apply_snapshot(snap)
            host.schedule_poll()
        if moves:
            host.refill_history()

    def replay_state(self) -> ReplayState | None:
        r = self.replay
        if r is None:
            return None
        with self.source_lock:
            return ReplayState(r.playing, r.speed, r.position, r.frame_count, r.time, r.start_time, r.end_time)

    def action_replay_toggle(self) -> None:
        replay = self.replay
        restarts = replay is not None and not replay.playing and replay.at_end  # play at the end starts over
        self._control(lambda r: r.toggle(), moves=restarts)

    def action_replay_step(self, frames: int) -> None:
        self._control(lambda r: r.step(frames), moves=abs(frames) > 1)

    def action_replay_jump(self, seconds: float) -> None:
        self._control(lambda r: r.jump(seconds), moves=True)

    def action_replay_faster(self) -> None:
        self._control(lambda r: r.faster())

    def action_replay_slower(self) -> None:
        self._control(lambda r: r.slower())

    def action_replay_seek(self) -> None:
        view = self._host.view_screen
        if self.replay is not None and view is not None:
            for bar in view.query(ReplayBar):  # none while the view is still being built
                bar.open_seek()

    def on_replay_bar_seek_requested(self, message: ReplayBar.SeekRequested) -> None:
        replay = self.replay
        if replay is None:
            return
        try:
            target = parse_seek(message.text, current=replay.time, start=replay.start_time, end=replay.end_time)
        except GputuiError as e:
            self._host.notify(str(e), severity="error", timeout=6)
            return
        if not replay.start_time <= target <= replay.end_time:
            self._host.notify("that time is outside the recording: went to the nearest end", timeout=4)
        self._control(lambda r: r.seek(min(max(target, r.start_time), r.end_time)), moves=True)
