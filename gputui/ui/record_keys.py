"""Recording the session from the shell (the r key and --record FILE): the badge, the file opened and closed
in threads, and what goes wrong said once."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App
from textual.message import Message

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, Event
from gputui.dashboard.session.controller import RecordingController
from gputui.ui.dialogs.outcome_dialogs import ask, say
from gputui.ui.palette import Palette
from gputui.ui.render.app_internals import every_screen
from gputui.ui.render.text_panel import TextPanel

if TYPE_CHECKING:
    from gputui.dashboard.session.recorder import SessionRecording

#: Below this many columns the badge leaves the file out, so that the view tabs beside it stay whole.
SHORT_BELOW = 120


class RecordBadge(TextPanel):
    """A one-line indicator at the right of the top bar, shown only while recording: the file and how many frames
    it holds (on a narrow terminal the frames only)."""

    def show_recording(self, recording: SessionRecording | None, palette: Palette) -> None:
        self.display = recording is not None and recording.active
        if self.display and recording is not None:
            frames = recording.accepted
            said = (
                f"{frames} frames" if self.app.size.width < SHORT_BELOW else f"{recording.path.name} · {frames} frames"
            )
            self.show_text(Text.assemble(("● REC ", palette.lost), (said, palette.text)))


class RecordingFailed(Message):
    """A write failed on the recording's thread; the recording has stopped taking frames."""

    def __init__(self, recording: SessionRecording, error: str) -> None:
        super().__init__()
        self.recording = recording
        self.error = error


class RecordKeys:
    """The recording of ``app``'s session; ``on_screen`` is the frame shown now, the first one recorded."""

    def __init__(
        self,
        app: App[Any],
        controller: RecordingController,
        *,
        palette: Callable[[], Palette],
        on_screen: Callable[[], ClusterSnapshot | None],
    ) -> None:
        self.app = app
        self.controller = controller
        self.palette = palette
        self.on_screen = on_screen

    def record(self, snapshot: ClusterSnapshot | None, events: Iterable[Event] = ()) -> None:
        """What the shell just showed (cheap: the writing happens on the recording's thread)."""
        if self.controller.record(snapshot, events):
            self.show_badge()

    def show_badge(self) -> None:
        """Bring the badge of every view (each view's screen has one) up to date."""
        for screen in every_screen(self.app):
            for badge in screen.query(RecordBadge):  # none while a view is still being built
                badge.show_recording(self.controller.recording, self.palette())

    def start(self, path: str | os.PathLike[str]) -> None:
        app = self.app
        rec = self.controller.start(path, lambda rec, error: app.post_message(RecordingFailed(rec, error)))
        if rec is not None:
            app.run_worker(self._open(rec), group="record")

    async def _open(self, rec: SessionRecording) -> None:
        error = None
        try:
            await asyncio.to_thread(rec.start)
        except GputuiError as e:
            error = str(e)
        say(self.app, self.controller.opened(rec, error, self.on_screen()))
        self.show_badge()

    def failed(self, message: RecordingFailed) -> None:
        notice = self.controller.failed(message.recording, message.error)
        if notice is not None:
            say(self.app, notice)
            self.stop()

    def stop(self) -> None:
        rec = self.controller.stop()
        self.show_badge()
        if rec is not None:
            self.app.run_worker(self._close(rec), group="record")

    async def _close(self, rec: SessionRecording) -> None:
        summary = await asyncio.to_thread(rec.stop)
        say(self.app, self.controller.closed(summary))

    async def toggle(self) -> None:
        """Stop the recording, or ask for a file and start one (a worker: it waits for the dialog)."""
        if self.controller.recording is not None:
            self.stop()
            return
        path = await ask(self.app, self.controller.ask_path())
        if path is not None:
            self.start(path.strip())
