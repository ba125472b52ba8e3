"""Random access to a recording's frames: keyframe index, then deltas up to the wanted frame."""

from __future__ import annotations

import bisect
import json
import os
import struct
import zlib
from array import array
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
    record_ok,
)
from gputui.sources.recording.scan import Damage, scan_file

#: segments kept decoded-ready: the one playing and the one before it (a history window reaches back into it);
#: reading further back (a jump's history, the radar's priming) reads each segment again, once, in order
KEPT_SEGMENTS = 2


class _Segment:
    """The frame records from one keyframe up to the next, read in one go, each one's checksum verified.

    Kept compact, since a replay holds it for minutes: the bytes as read, with each frame's time and payload
    bounds in flat arrays (a memoryview and a float object per frame cost 200 bytes more each).

    ``damage`` says why reading stopped early (None: every record was intact); the frames from there to the
    next keyframe cannot be decoded (a delta needs every frame before it)."""

    __slots__ = ("data", "times", "_bounds", "damage")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.times = array("d")
        self._bounds = array("Q")  # start and end of each frame's payload in data
        self.damage: str | None = None
        view = memoryview(data)
        pos, end = 0, len(data)
        while pos + HEAD.size <= end:
            kind, length, ts, crc = HEAD.unpack_from(data, pos)
            body = pos + HEAD.size
            if body + length > end:
                self.damage = "a record's length runs past the next keyframe"
                break
            if not record_ok(kind, length, ts, crc, view[body : body + length]):
                self.damage = "checksum mismatch"
                break
            if kind in FRAME_KINDS:
                if not self.times and kind != KEYFRAME:
                    self.damage = "the segment does not start with a keyframe"
                    break
                self.times.append(ts)
                self._bounds.append(body)
                self._bounds.append(body + length)
            pos = body + length

    def __len__(self) -> int:
        """How many frames of the segment are intact."""
        return len(self.times)

    def payload(self, n: int) -> memoryview:
        return memoryview(self.data)[self._bounds[2 * n] : self._bounds[2 * n + 1]]


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
        self.damage: list[Damage] = []
        self.torn = False
        if index is None:
            scan = scan_file(self._f, first)
            index, self.damage, self.torn = scan.index, scan.damage, scan.torn
        if index.frame_count == 0:
            raise RecordingError(f"{name}: recording has no complete frame")
        self.index = index
        self.damaged = bool(self.damage) or self.torn or (not index.clean and index.data_end < size)
        self.warnings: list[str] = [d.describe(name) for d in self.damage]  # new ones are appended as found
        self._warned: set[int] = set()
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
        try:
            self._f.seek(start)
            data = self._f.read(end - start)
        except (OSError, ValueError) as e:  # the file went away or was closed under the replay
            raise RecordingError(f"{self.path}: cannot read frame {self._key_frames[k]} on: {e}") from None
        seg = _Segment(data)
        self._segments[k] = seg
        if len(self._segments) > KEPT_SEGMENTS:
            self._segments.popitem(last=False)
        return seg

    def _locate_frame(self, i: int) -> tuple[int, int]:
        k = bisect.bisect_right(self._key_frames, i) - 1
        return k, i - self._key_frames[k]

    def _segment_frames(self, k: int) -> int:
        """How many frames the index gives keyframe ``k``'s segment."""
        nxt = self._key_frames[k + 1] if k + 1 < len(self._key_frames) else self.frame_count
        return nxt - self._key_frames[k]

    def intact(self, i: int) -> bool:
        """Whether frame ``i`` can be decoded (every record up to it in its segment verified)."""
        k, j = self._locate_frame(i)
        return j < len(self._segment(k))

    def nearest_intact(self, i: int, direction: int) -> int | None:
        """The first intact frame from ``i`` on (``direction`` 1) or back (-1); None if there is none."""
        while 0 <= i < self.frame_count:
            k, j = self._locate_frame(i)
            good = len(self._segment(k))
            if j < good:
                return i
            self._damaged(i, k, self._segment(k))  # said once: the damage stepped over
            if direction > 0:
                i = self._key_frames[k] + self._segment_frames(k)  # the next keyframe
            else:
                i = self._key_frames[k] + good - 1 if good else self._key_frames[k] - 1
        return None

    def timestamp(self, i: int) -> float:
        """Frame ``i``'s time; for a damaged frame, that of the last intact frame before it."""
        k, j = self._locate_frame(i)
        times = self._segment(k).times
        if j < len(times):
            return times[j]
        return times[-1] if times else self._key_times[k]

    def locate(self, t: float) -> int:
        """The last intact frame at or before time ``t`` (the first frame if ``t`` is earlier)."""
        k = max(0, bisect.bisect_right(self._key_times, t) - 1)
        seg = self._segment(k)
        if not seg.times:  # the keyframe itself is damaged: the frame before it, if any
            self._damaged(self._key_frames[k], k, seg)
            back = self.nearest_intact(self._key_frames[k], -1)
            return back if back is not None else self._key_frames[k]
        j = max(0, bisect.bisect_right(seg.times, t) - 1)
        if seg.damage is not None and t > seg.times[-1]:
            self._damaged(self._key_frames[k] + len(seg), k, seg)  # said once: an earlier frame is shown
        return self._key_frames[k] + j

    def _damaged(self, i: int, k: int, seg: _Segment) -> RecordingError:
        first = self._key_frames[k] + len(seg)
        last = self._key_frames[k] + self._segment_frames(k) - 1
        lost = f"frame {first}" if first == last else f"frames {first} to {last}"
        message = f"{self.path}: frame {i} is damaged ({seg.damage} at frame {first}): {lost} cannot be read"
        if k not in self._warned:
            self._warned.add(k)
            self.warnings.append(message)
        return RecordingError(message)

    def frame(self, i: int) -> ClusterSnapshot:
        if not 0 <= i < self.frame_count:
            raise IndexError(i)
        k, j = self._locate_frame(i)
        seg = self._segment(k)
        if j >= len(seg):
            raise self._damaged(i, k, seg)
        cur = self._cursor
        try:
            if cur is not None and cur[0] == k and cur[1] <= j:
                _, at, state, table = cur
            else:
                state = json.loads(zlib.decompress(seg.payload(0)))
                table = delta.PathTable()
                at = 0
            for n in range(at + 1, j + 1):
                state = delta.apply_encoded(state, seg.payload(n), table)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, zlib.error, struct.error) as e:
            self._cursor = None
            raise RecordingError(f"{self.path}: frame {i} cannot be decoded: {e}") from None
        self._cursor = (k, j, state, table)
        try:
            return from_data(ClusterSnapshot, {**state, "timestamp": seg.times[j]})
        except SnapshotFormatError as e:
            raise RecordingError(f"{self.path}: frame {i}: {e}") from None
