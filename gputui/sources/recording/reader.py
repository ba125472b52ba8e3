"""Random access to a recording's frames: keyframe index, then deltas up to the wanted frame."""

from __future__ import annotations

import bisect
import json
import os
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

from gputui.core.errors import RecordingError, SnapshotFormatError
from gputui.core.model import ClusterSnapshot, Event
from gputui.core.serialize import from_data
from gputui.sources.recording import delta
from gputui.sources.recording.fileformat import (
    FRAME_KINDS,
    HEAD,
    KEYFRAME,
    read_header,
    read_trailer_index,
    scan_index,
)


class _Segment:
    """The frame records from one keyframe up to the next, read in one go."""

    __slots__ = ("times", "kinds", "payloads")

    def __init__(self, data: bytes) -> None:
        self.times: list[float] = []
        self.kinds: list[bytes] = []
        self.payloads: list[memoryview] = []
        view = memoryview(data)
        pos, end = 0, len(data)
        while pos + HEAD.size <= end:
            kind, length, ts, _crc = HEAD.unpack_from(data, pos)
            body = pos + HEAD.size
            if body + length > end:
                break
            if kind in FRAME_KINDS:
                self.times.append(ts)
                self.kinds.append(kind)
                self.payloads.append(view[body : body + length])
            pos = body + length


class RecordingReader:
    """A frame store over a recording file; frames are numbered from 0."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        name = str(path)
        try:
            self._f = open(self.path, "rb")  # noqa: SIM115 - closed in close()
        except OSError as e:
            raise RecordingError(f"{name}: cannot open recording: {e.strerror}") from None
        head = self._f.read(64 * 1024)
        self.meta, first = read_header(head, name)
        size = os.fstat(self._f.fileno()).st_size
        index = read_trailer_index(self._f, size, first)
        if index is None:
            self._f.seek(0)
            index = scan_index(self._f.read(), first)
        if index.frame_count == 0:
            raise RecordingError(f"{name}: recording has no complete frame")
        self.index = index
        self.damaged = not index.clean and index.data_end < size
        self._key_frames = [k[0] for k in index.keyframes]
        self._key_times = [k[1] for k in index.keyframes]
        self._segments: OrderedDict[int, _Segment] = OrderedDict()
        # decode cursor: (segment number, frame number within it, state dict, path table)
        self._cursor: tuple[int, int, Any, delta.PathTable] | None = None
        self.events = [self._event(e) for e in index.events]
        self.events.sort(key=lambda e: e.timestamp)
        self.start_time = index.keyframes[0][1]
        self.end_time = index.end_time if index.end_time is not None else self.start_time

    def _event(self, data: Any) -> Event:
        try:
            return from_data(Event, data)
        except SnapshotFormatError as e:
            raise RecordingError(f"{self.path}: bad event in recording: {e}") from None

    @property
    def frame_count(self) -> int:
        return self.index.frame_count

    def close(self) -> None:
        self._f.close()

    def _segment(self, k: int) -> _Segment:
        seg = self._segments.get(k)
        if seg is not None:
            self._segments.move_to_end(k)
            return seg
        start = self.index.keyframes[k][2]
        end = self.index.keyframes[k + 1][2] if k + 1 < len(self.index.keyframes) else self.index.data_end
        self._f.seek(start)
        seg = _Segment(self._f.read(end - start))
        self._segments[k] = seg
        if len(self._segments) > 8:
            self._segments.popitem(last=False)
        return seg

    def _locate_frame(self, i: int) -> tuple[int, int]:
        k = bisect.bisect_right(self._key_frames, i) - 1
        return k, i - self._key_frames[k]

    def timestamp(self, i: int) -> float:
        k, j = self._locate_frame(i)
        return self._segment(k).times[j]

    def locate(self, t: float) -> int:
        """The last frame at or before time ``t`` (the first frame if ``t`` is earlier)."""
        k = max(0, bisect.bisect_right(self._key_times, t) - 1)
        seg = self._segment(k)
        j = max(0, bisect.bisect_right(seg.times, t) - 1)
        return self._key_frames[k] + j

    def frame(self, i: int) -> ClusterSnapshot:
        if not 0 <= i < self.frame_count:
            raise IndexError(i)
        k, j = self._locate_frame(i)
        seg = self._segment(k)
        cur = self._cursor
        if cur is not None and cur[0] == k and cur[1] <= j:
            _, at, state, table = cur
        else:
            if seg.kinds[0] != KEYFRAME:
                raise RecordingError(f"{self.path}: keyframe index points at a delta")
            state = json.loads(zlib.decompress(seg.payloads[0]))
            table = delta.PathTable()
            at = 0
        try:
            for n in range(at + 1, j + 1):
                state = delta.apply_encoded(state, seg.payloads[n], table)
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise RecordingError(f"{self.path}: frame {i} cannot be decoded: {e}") from None
        self._cursor = (k, j, state, table)
        try:
            return from_data(ClusterSnapshot, {**state, "timestamp": seg.times[j]})
        except SnapshotFormatError as e:
            raise RecordingError(f"{self.path}: frame {i}: {e}") from None
