"""Recording the session the dashboard shows: its snapshots and events, written by a Recorder on its own thread.

The dashboard only queues what it applied; a thread of this class writes it, so a slow disk never delays a
frame. Frames must move forward in time, so when a replay is taken backwards (or shows a frame again) the
frames up to the last one written are skipped, and counted, until the replay has passed it again.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, Event
from gputui.recorder import Recorder

_STOP = object()


@dataclass(frozen=True, slots=True)
class RecordingSummary:
    """What a finished recording holds; ``error`` is the one line that ended it early, if any."""

    path: Path
    frames: int
    events: int
    skipped: int
    error: str | None = None

    def text(self) -> str:
        s = "" if self.frames == 1 else "s"
        line = f"recorded {self.frames} frame{s} and {self.events} events to {self.path}"
        return line if self.error is None else f"{line}; stopped early: {self.error}"


class SessionRecording:
    """Appends the frames and events given to :meth:`add_snapshot` / :meth:`add_events` to ``path``.

    ``derive_mps_events``: let the recorder write MPS daemon changes it sees between frames (a live source);
    a replay brings its own. ``on_error`` is called (on the writer thread) with one line when writing fails.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        meta: dict[str, Any] | None = None,
        derive_mps_events: bool = True,
        on_error: Callable[[str], object] | None = None,
    ) -> None:
        self.path = Path(path)
        self.recorder = Recorder(self.path, meta=meta, derive_mps_events=derive_mps_events)
        self.on_error = on_error  # its return value is ignored
        self.error: str | None = None
        self.skipped = 0
        self.accepted = 0  # frames handed over and not skipped (written, or about to be)
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._last: float | None = None
        self._summary: RecordingSummary | None = None

    @property
    def active(self) -> bool:
        """Started, not stopped, and no write has failed."""
        return self._thread is not None and self._summary is None and self.error is None

    @property
    def frames(self) -> int:
        return self.recorder.frames_written

    @property
    def events(self) -> int:
        return self.recorder.events_written

    def start(self) -> None:
        """Open the file (raises RecordingError with one line) and start the writer thread."""
        self.recorder.start()
        self._thread = threading.Thread(target=self._run, name=f"gputui-record-{self.path.name}", daemon=True)
        self._thread.start()

    def add_snapshot(self, snap: ClusterSnapshot) -> None:
        """Queue a frame; one not later than the last one taken is skipped (a replay went back, or paused)."""
        if not self.active:
            return
        if self._last is not None and snap.timestamp <= self._last:
            self.skipped += 1
            return
        self._last = snap.timestamp
        self.accepted += 1
        self._queue.put(snap)

    def add_events(self, events: Iterable[Event]) -> None:
        events = tuple(events)
        if events and self.active:
            self._queue.put(events)

    def flush(self) -> None:
        """Wait until everything queued so far is written (or dropped after a failure)."""
        if self._thread is not None and self._thread.is_alive():
            self._queue.join()

    def stop(self, timeout: float = 10.0) -> RecordingSummary:
        """Write what is queued, close the file (its index written) and return what it holds; safe to call twice."""
        if self._summary is not None:
            return self._summary
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
        self.recorder.close()  # also when the thread hangs on a dead disk: the lock makes it wait for that write
        self._summary = RecordingSummary(self.path, self.frames, self.events, self.skipped, self.error)
        return self._summary

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                if self.error is None:  # after a failure the queue is only drained
                    self._write(item)
            except (GputuiError, OSError) as e:
                self.error = str(e) if isinstance(e, GputuiError) else f"{self.path}: {e.strerror or e}"
                if self.on_error is not None:
                    self.on_error(self.error)
            finally:
                self._queue.task_done()

    def _write(self, item: object) -> None:
        if isinstance(item, ClusterSnapshot):
            self.recorder.append(item)
            return
        assert isinstance(item, tuple)
        for e in item:
            self.recorder.add_event(e)
