"""The replay keys of the shell: each control moves the replay and shows its frame at once, also while paused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App

from gputui.core.model import ClusterSnapshot
from gputui.dashboard.feed import Feed
from gputui.dashboard.jobs import JobsController
from gputui.dashboard.replay import ReplayController, ReplayMove
from gputui.ui.dialogs.outcome_dialogs import say
from gputui.ui.messages import Fed


class ReplayKeys:
    """``apply`` draws a frame; with a job queue the poll thread draws it instead, with the queue's jobs in it."""

    def __init__(
        self,
        app: App[Any],
        controls: ReplayController,
        feed: Feed,
        jobs: JobsController,
        apply: Callable[[ClusterSnapshot], object],
    ) -> None:
        self.app = app
        self.controls = controls
        self.feed = feed
        self.jobs = jobs
        self.apply = apply

    def show(self, move: ReplayMove | None) -> None:
        """Show the frame a replay control went to; after a jump, read the history before it again."""
        for notice in self.controls.take_notices():
            say(self.app, notice)
        if move is None:
            return
        if self.jobs.service is not None:
            # The poll thread draws the frame with the queue's jobs in it; drawing the raw frame here first
            # would make them blink out for a moment.
            self.feed.schedule(0)
        else:
            self.apply(move.snapshot)
            self.feed.schedule()
        if move.refill:
            self.refill()

    def refill(self) -> None:
        """Read the minutes before the replay's position (the history, the idle radar) in a thread."""
        self.app.run_worker(self._read_history, thread=True, exclusive=True, exit_on_error=False, group="history")

    def _read_history(self) -> None:
        self.app.post_message(Fed(self.feed.read_history()))

    def seek(self, text: str) -> None:
        move, notice = self.controls.seek(text)
        say(self.app, notice)
        self.show(move)
