"""Record a session: snapshots and events appended to a gputui recording, safe to feed from a worker thread.

The recorder derives MPS daemon changes (mps_started / mps_stopped) from consecutive snapshots; the
owner adds other events (jobs) with :meth:`Recorder.add_event`. It never calls into a UI.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gputui.core.errors import RecordingError
from gputui.core.model import ClusterSnapshot, Event
from gputui.mps.transitions import mps_events
from gputui.sources.recording import RecordingWriter


def io_reason(e: OSError) -> str:
    """Why a file could not be written, in the words a user looks for."""
    words = {errno.ENOSPC: "disk full", errno.EDQUOT: "disk quota exceeded", errno.EROFS: "read-only file system",
             errno.EACCES: "permission denied", errno.EPERM: "permission denied"}  # fmt: skip
    return words.get(e.errno or 0, e.strerror or str(e))


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class Recorder:
    """Appends to ``path`` (a new file, or an existing recording continued after its last frame).

    ``start`` opens the file, ``append`` writes a frame (and the MPS events it implies), ``close`` writes
    the index. All three, and ``add_event``, may be called from different threads.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, meta: dict[str, Any] | None = None, derive_mps_events: bool = True
    ) -> None:
        self.path = Path(path)
        self.meta = meta or {}
        self.derive_mps_events = derive_mps_events
        self.frames_written = 0
        self.events_written = 0
        self.existing_frames = 0
        self._writer: RecordingWriter | None = None
        self._prev: ClusterSnapshot | None = None
        self._end: float | None = None
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self._writer is not None

    def start(self) -> None:
        with self._lock:
            if self._writer is not None:
                return
            if self.path.is_dir():
                raise RecordingError(f"{self.path}: is a directory")
            try:
                self._writer = RecordingWriter(self.path, meta=self.meta)
            except OSError as e:
                raise RecordingError(f"{self.path}: cannot write: {io_reason(e)}") from None
            self.existing_frames = self._writer.frame_count
            self._end = self._writer.index.end_time

    def append(self, snap: ClusterSnapshot) -> list[Event]:
        """Write one frame; returns the events derived from it (already written)."""
        with self._lock:
            w = self._need()
            if self._end is not None and snap.timestamp < self._end:
                raise RecordingError(
                    f"{self.path}: a frame at {_iso(snap.timestamp)} would come before the recording's end "
                    f"({_iso(self._end)}); record into a new file"
                )
            try:
                w.append(snap)
            except OSError as err:
                raise self._failed(err) from None
            self.frames_written += 1
            self._end = snap.timestamp
            events = mps_events(self._prev, snap) if self.derive_mps_events else []
            for e in events:
                self._event(w, e)
            self.events_written += len(events)
            self._prev = snap
            return events

    def add_event(self, event: Event) -> None:
        with self._lock:
            self._event(self._need(), event)
            self.events_written += 1

    def _event(self, w: RecordingWriter, event: Event) -> None:
        try:
            w.add_event(event)
        except OSError as e:
            raise self._failed(e) from None

    def _failed(self, e: OSError) -> RecordingError:
        """A write failed (a full disk): the file is closed as it is (it still reads, by a scan), one line said."""
        w, self._writer = self._writer, None
        if w is not None:
            with contextlib.suppress(OSError):
                w.close()
        kept = self.existing_frames + self.frames_written
        return RecordingError(f"{self.path}: cannot write: {io_reason(e)}; the {kept} frames before stay readable")

    def close(self) -> None:
        """Write the index and close; safe to call twice."""
        with self._lock:
            if self._writer is not None:
                w, self._writer = self._writer, None
                try:
                    w.close()
                except OSError as e:
                    kept = self.existing_frames + self.frames_written
                    raise RecordingError(
                        f"{self.path}: cannot write its index: {io_reason(e)}; its {kept} frames stay readable"
                    ) from None

    def _need(self) -> RecordingWriter:
        if self._writer is None:
            raise RecordingError(f"{self.path}: recorder is not started")
        return self._writer

    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
