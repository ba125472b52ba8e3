"""Recording the session the dashboard shows (the r key and --record FILE), mixed into the app.

The app hands every snapshot it applies and every event it shows to :meth:`RecordControls.record_applied`;
a :class:`SessionRecording` writes them on its own thread. Closing the app closes the file cleanly.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import work
from textual.css.query import NoMatches
from textual.message import Message

from gputui import __version__
from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, Event
from gputui.dashboard.session_recording import RecordingSummary, SessionRecording
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.prompt_dialog import PromptDialog
from gputui.ui.text_panel import TextPanel

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.app import App


def default_record_path(now: float | None = None) -> str:
    return time.strftime("gputui-%Y%m%d-%H%M%S.gtrec", time.localtime(now))


def check_record_path(text: str) -> str | None:
    """The problem with recording into ``text``, or None."""
    if not text.strip():
        return "give the file to record into"
    path = Path(os.path.expanduser(text.strip()))
    if path.is_dir():
        return f"{path} is a directory"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"no directory {parent}"
    if not os.access(parent, os.W_OK) and not path.exists():
        return f"cannot write in {parent}"
    return None


class RecordBadge(TextPanel):
    """A one-line indicator, shown only while recording: the file and how many frames it holds."""

    def show_recording(self, recording: SessionRecording | None, palette: Palette) -> None:
        self.display = recording is not None and recording.active
        if self.display and recording is not None:
            frames = recording.accepted
            self.show_text(
                Text.assemble(("● REC ", palette.lost), (f"{recording.path.name} · {frames} frames", palette.text))
            )


class RecordingOpened(Message):
    def __init__(self, recording: SessionRecording, error: str | None) -> None:
        super().__init__()
        self.recording = recording
        self.error = error


class RecordingFailed(Message):
    """A write failed on the recording's thread; the recording has stopped taking frames."""

    def __init__(self, recording: SessionRecording, error: str) -> None:
        super().__init__()
        self.recording = recording
        self.error = error


class RecordingClosed(Message):
    def __init__(self, summary: RecordingSummary) -> None:
        super().__init__()
        self.summary = summary


class RecordControls:
    """Mixed into the app: one recording at a time, started by :meth:`start_recording` or the r key."""

    recording: SessionRecording | None = None
    palette: Palette = PLAIN

    @property
    def _rapp(self) -> App[Any]:
        return cast("App[Any]", self)

    # -- feeding it ----------------------------------------------------------------------------
    def record_applied(self, snapshot: ClusterSnapshot | None, events: Iterable[Event] = ()) -> None:
        """Queue what the app just showed (cheap: the writing happens on the recording's thread)."""
        rec = self.recording
        if rec is None or not rec.active:
            return
        if snapshot is not None:
            rec.add_snapshot(snapshot)
        rec.add_events(events)
        self.show_record_badge()

    def show_record_badge(self) -> None:
        try:
            badge = self._rapp.query_one(RecordBadge)
        except NoMatches:
            return
        badge.show_recording(self.recording, self.palette)

    # -- starting and stopping -----------------------------------------------------------------
    def start_recording(self, path: str | os.PathLike[str]) -> None:
        if self.recording is not None:
            return
        app = self._rapp
        source = getattr(self, "source", None)
        meta = {"source": getattr(source, "description", "gputui"), "recorded_by": f"gputui {__version__} dashboard"}
        replay = getattr(self, "replay", None) is not None
        rec = SessionRecording(
            Path(os.path.expanduser(str(path))),
            meta=meta,
            derive_mps_events=not replay,  # a replay brings its own MPS events
            on_error=lambda error: app.post_message(RecordingFailed(rec, error)),
        )
        self.recording = rec
        self._open_recording(rec)

    @work(thread=True, group="record")
    def _open_recording(self, rec: SessionRecording) -> None:
        try:
            rec.start()
        except GputuiError as e:
            self._rapp.post_message(RecordingOpened(rec, str(e)))
            return
        self._rapp.post_message(RecordingOpened(rec, None))

    def on_recording_opened(self, message: RecordingOpened) -> None:
        if message.recording is not self.recording:
            return
        if message.error is not None:
            self.recording = None
            self._rapp.notify(f"cannot record: {message.error}", severity="error", timeout=8)
        else:
            rec = message.recording
            more = (
                f" (continuing after its {rec.recorder.existing_frames} frames)" if rec.recorder.existing_frames else ""
            )
            self._rapp.notify(f"recording this session to {rec.path}{more}; r stops", timeout=5)
            snap = getattr(self, "snapshot", None)
            if snap is not None:
                rec.add_snapshot(snap)  # the frame on screen now is the first one
        self.show_record_badge()

    def on_recording_failed(self, message: RecordingFailed) -> None:
        if message.recording is self.recording:
            self._rapp.notify(f"recording stopped: {message.error}", severity="error", timeout=10)
            self.stop_recording()

    def stop_recording(self) -> None:
        rec, self.recording = self.recording, None
        self.show_record_badge()
        if rec is not None:
            self._close_recording(rec)

    @work(thread=True, group="record")
    def _close_recording(self, rec: SessionRecording) -> None:
        self._rapp.post_message(RecordingClosed(rec.stop()))

    def on_recording_closed(self, message: RecordingClosed) -> None:
        s = message.summary
        self._rapp.notify(s.text(), severity="information" if s.error is None else "warning", timeout=8)

    def close_recording_now(self) -> RecordingSummary | None:
        """Stop and close at once, on the calling thread: for the app's exit, so the file is always complete."""
        rec, self.recording = self.recording, None
        return rec.stop() if rec is not None else None

    def action_toggle_record(self) -> None:
        if self.recording is not None:
            self.stop_recording()
            return

        def chosen(path: str | None) -> None:
            if path is not None:
                self.start_recording(path.strip())

        label = "Every frame shown and every event is appended; an existing recording is continued."
        self._rapp.push_screen(
            PromptDialog("Record this session", label, default_record_path(), check_record_path), chosen
        )
