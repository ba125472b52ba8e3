"""Append snapshots and events to a recording, one flushed record at a time."""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

from gputui.core.errors import RecordingError
from gputui.core.model import ClusterSnapshot, Event
from gputui.core.serialize import to_data
from gputui.sources.recording import delta
from gputui.sources.recording.fileformat import (
    DELTA,
    EVENT,
    INDEX,
    KEYFRAME,
    TRAILER,
    RecordingIndex,
    header_bytes,
    pack_record,
    read_header,
    read_trailer_index,
)
from gputui.sources.recording.scan import scan_file

DEFAULT_KEYFRAME_INTERVAL = 300


class RecordingWriter:
    """Writes a recording; reopening an existing file appends to it after its last good record.

    Every record is flushed as it is written, so a crash loses at most the record being written;
    ``fsync_every`` frames the file is also synced to disk.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        meta: dict[str, Any] | None = None,
        keyframe_interval: int = DEFAULT_KEYFRAME_INTERVAL,
        fsync_every: int = 60,
    ) -> None:
        self.path = Path(path)
        self.keyframe_interval = max(1, keyframe_interval)
        self.fsync_every = fsync_every
        self._table = delta.PathTable()
        self._prev: dict[str, Any] | None = None
        self._since_key = 0
        self._closed = True  # until the file is open
        if self.path.exists() and self.path.stat().st_size > 0:
            self._f, self.index = self._reopen()
        else:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._f = os.fdopen(fd, "wb", buffering=0)
            try:
                self._write_all(header_bytes(meta or {}))
            except OSError:
                self._f.close()
                raise
            self.index = RecordingIndex(0, [], [], self._f.tell(), None, clean=False)
        self._closed = False

    def _reopen(self) -> tuple[Any, RecordingIndex]:
        """Open an existing recording to append after its last intact record. Everything is decided before the
        file is touched: only an old index and a torn tail (a record cut short by a crash) may be cut; a file
        with a damaged record after its last intact one is refused and left exactly as it was."""
        name = str(self.path)
        with open(self.path, "rb") as f:
            _, first = read_header(f.read(64 * 1024), name)
            size = os.fstat(f.fileno()).st_size
            index = read_trailer_index(f, size, first)
            if index is None:
                scan = scan_file(f, first)
                index = scan.index
                beyond = [d for d in scan.damage if d.offset >= index.data_end]
                if beyond:
                    d = beyond[0]
                    raise RecordingError(
                        f"{name}: damaged record at frame {d.frame} (byte {d.offset}: {d.why}); appending would "
                        f"cut the {size - index.data_end} bytes after its last intact frame, so the file is left "
                        "untouched: record into another file"
                    )
                if index.frame_count == 0 and not index.events and index.data_end < size and not scan.torn:
                    raise RecordingError(f"{name}: no intact record; the file is left untouched")
        f2 = open(self.path, "r+b", buffering=0)  # noqa: SIM115 - kept open for appending
        f2.truncate(index.data_end)  # drop the old index and a torn tail, nothing else
        f2.seek(index.data_end)
        index.clean = False
        return f2, index

    @property
    def frame_count(self) -> int:
        return self.index.frame_count

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = self._f.write(view)
            view = view[n or 0 :]

    def _write(self, kind: bytes, timestamp: float, payload: bytes) -> int:
        """Append one record; on a write error (a full disk) the part written is cut off again, so that the file
        still ends at a whole record, and the error is raised."""
        offset = self._f.tell()
        try:
            self._write_all(pack_record(kind, timestamp, payload))
        except OSError:
            try:
                self._f.truncate(offset)
                self._f.seek(offset)
            except OSError:
                pass  # the torn record stays: a reader stops before it
            raise
        return offset

    def append(self, snap: ClusterSnapshot) -> None:
        """Write one frame: a keyframe every ``keyframe_interval`` frames, a delta otherwise."""
        if self._closed:
            raise RecordingError(f"{self.path}: recording is closed")
        data = to_data(snap)
        ts = data.pop("timestamp")
        if self._prev is None or self._since_key >= self.keyframe_interval:
            payload = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)
            offset = self._write(KEYFRAME, ts, payload)
            self.index.keyframes.append((self.index.frame_count, ts, offset))
            self._table.reset()
            self._since_key = 0
        else:
            self._write(DELTA, ts, delta.encode(delta.diff(self._prev, data), self._table))
        self._prev = data
        self._since_key += 1
        self.index.frame_count += 1
        self.index.end_time = ts
        self.index.data_end = self._f.tell()
        if self.fsync_every and self.index.frame_count % self.fsync_every == 0:
            os.fsync(self._f.fileno())

    def add_event(self, event: Event) -> None:
        data = to_data(event)
        self._write(EVENT, event.timestamp, json.dumps(data, separators=(",", ":")).encode())
        self.index.events.append(data)
        self.index.data_end = self._f.tell()

    def close(self) -> None:
        """Write the index and trailer so the next reader can seek at once."""
        if self._closed:
            return
        self._closed = True
        try:
            x_offset = self._write(INDEX, self.index.end_time or 0.0, self.index.to_payload())
            self._write(TRAILER, 0.0, struct.pack("<Q", x_offset))
            os.fsync(self._f.fileno())
        finally:
            self._f.close()  # without its index the file is still read, by a scan

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
