"""Recording the session the dashboard shows (the r key and --record FILE): one recording at a time.

The shell hands every snapshot it applies and every event it shows to :meth:`RecordingController.record`;
a :class:`SessionRecording` writes them on its own thread. Closing the app closes the file cleanly.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from gputui import __version__
from gputui.core.model import ClusterSnapshot, Event
from gputui.dashboard.outcomes import Notice, Prompt

if TYPE_CHECKING:  # the recorder loads when a recording starts, not before the first frame
    from gputui.dashboard.session.recorder import RecordingSummary, SessionRecording


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


class RecordingController:
    """The recording of a dashboard on ``description``'s source; ``replay``: it replays a recording, which
    brings its own MPS events."""

    def __init__(self, description: str, *, replay: bool) -> None:
        self.description = description
        self.replay = replay
        self.recording: SessionRecording | None = None

    def record(self, snapshot: ClusterSnapshot | None, events: Iterable[Event] = ()) -> bool:
        """Queue what the shell just showed (cheap: the writing happens on the recording's thread); False when
        nothing records."""
        rec = self.recording
        if rec is None or not rec.active:
            return False
        if snapshot is not None:
            rec.add_snapshot(snapshot)
        rec.add_events(events)
        return True

    def ask_path(self) -> Prompt:
        label = "Every frame shown and every event is appended; an existing recording is continued."
        return Prompt("Record this session", label, default_record_path(), check_record_path)

    def start(
        self, path: str | os.PathLike[str], on_error: Callable[[SessionRecording, str], object]
    ) -> SessionRecording | None:
        """A new recording into ``path`` (None if one runs); open it with ``SessionRecording.start`` in a thread.
        ``on_error`` is called on the recording's thread when a write fails."""
        if self.recording is not None:
            return None
        from gputui.dashboard.session.recorder import SessionRecording

        meta = {"source": self.description, "recorded_by": f"gputui {__version__} dashboard"}
        rec = SessionRecording(
            Path(os.path.expanduser(str(path))),
            meta=meta,
            derive_mps_events=not self.replay,  # a replay brings its own MPS events
            on_error=lambda error: on_error(rec, error),
        )
        self.recording = rec
        return rec

    def opened(self, rec: SessionRecording, error: str | None, on_screen: ClusterSnapshot | None) -> Notice | None:
        """The open's outcome; the frame on screen now becomes the first one."""
        if rec is not self.recording:
            return None
        if error is not None:
            self.recording = None
            return Notice(f"cannot record: {error}", "error", 8)
        existing = rec.recorder.existing_frames
        more = f" (continuing after its {existing} frames)" if existing else ""
        if on_screen is not None:
            rec.add_snapshot(on_screen)
        return Notice(f"recording this session to {rec.path}{more}; r stops", timeout=5)

    def failed(self, rec: SessionRecording, error: str) -> Notice | None:
        return Notice(f"recording stopped: {error}", "error", 10) if rec is self.recording else None

    def stop(self) -> SessionRecording | None:
        """The recording to close (in a thread: ``SessionRecording.stop``), or None."""
        rec, self.recording = self.recording, None
        return rec

    @staticmethod
    def closed(summary: RecordingSummary) -> Notice:
        return Notice(summary.text(), "information" if summary.error is None else "warning", 8)

    def close_now(self) -> RecordingSummary | None:
        """Stop and close at once, on the calling thread: for the app's exit, so the file is always complete."""
        rec = self.stop()
        return rec.stop() if rec is not None else None
