"""Rebuild a recording's index by walking its records, streaming, with every checksum verified.

Used when a file has no valid trailer (the recorder was killed, or the end was damaged). The file is read
record by record through a buffer, so memory stays bounded whatever its size. At the first record that is
damaged (checksum, length, kind) the walk looks for the next intact keyframe and goes on from there: the frames
between are lost (one :class:`Damage` says which), every intact frame after them is kept. A record cut short
by the end of the file is a torn tail (the record being written when the recorder died).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import BinaryIO

from gputui.sources.recording.fileformat import (
    EVENT,
    FRAME_KINDS,
    HEAD,
    INDEX,
    KEYFRAME,
    MAX_PAYLOAD,
    TRAILER,
    RecordingIndex,
    record_ok,
)

_KINDS = (*FRAME_KINDS, EVENT, INDEX, TRAILER)
_BUFFER = 1 << 20
_RESYNC_STEP = 1 << 20


@dataclass(frozen=True)
class Damage:
    """Where a walk found damage: the byte offset, the frame number the damaged record would have had, why,
    and where reading went on (None: nothing intact after it)."""

    offset: int
    frame: int
    why: str
    resumed_at: int | None

    def describe(self, name: str) -> str:
        after = "nothing intact after it" if self.resumed_at is None else f"went on at byte {self.resumed_at}"
        return f"{name}: damaged record at frame {self.frame} (byte {self.offset}: {self.why}); {after}"


@dataclass
class ScanResult:
    index: RecordingIndex
    damage: list[Damage]
    torn: bool  # the file ends in a record cut short (what a killed recorder leaves)
    size: int


def _check(f: BinaryIO, pos: int, end: int) -> tuple[str | None, tuple[bytes, int, float, int], bytes]:
    """The record at ``pos``: (problem or None, its header, its payload); 'torn' when the file ends inside it."""
    f.seek(pos)
    head = f.read(HEAD.size)
    if len(head) < HEAD.size:
        return "torn", (b"", 0, 0.0, 0), b""
    kind, length, ts, crc = HEAD.unpack(head)
    if kind not in _KINDS:
        return f"unknown record kind {kind!r}", (kind, length, ts, crc), b""
    if length > MAX_PAYLOAD:
        return f"length {length} is not possible", (kind, length, ts, crc), b""
    if pos + HEAD.size + length > end:
        return "torn", (kind, length, ts, crc), b""
    payload = f.read(length)
    if not record_ok(kind, length, ts, crc, payload):
        return "checksum mismatch", (kind, length, ts, crc), b""
    return None, (kind, length, ts, crc), payload


def _next_keyframe(f: BinaryIO, start: int, end: int) -> int | None:
    """The offset of the next intact keyframe record at or after ``start``, read in steps (bounded memory)."""
    pos = start
    while pos < end:
        f.seek(pos)
        block = f.read(min(_RESYNC_STEP + HEAD.size, end - pos))
        at = block.find(KEYFRAME)
        while 0 <= at < min(_RESYNC_STEP, len(block)):
            problem, _h, _p = _check(f, pos + at, end)
            if problem is None:
                return pos + at
            at = block.find(KEYFRAME, at + 1)
        pos += _RESYNC_STEP
    return None


def scan_file(f: BinaryIO, first_record: int) -> ScanResult:
    """Walk every record of ``f`` from ``first_record``; see the module's docstring."""
    end = os.fstat(f.fileno()).st_size
    frames = 0
    keyframes: list[tuple[int, float, int]] = []
    events: list[dict] = []
    damage: list[Damage] = []
    data_end = first_record
    end_time: float | None = None
    torn = False
    pos = first_record
    need_key = False  # after damage, deltas are skipped until the next keyframe
    while pos < end:
        problem, (kind, length, ts, _crc), payload = _check(f, pos, end)
        if problem == "torn":
            # A record cut short by the end of the file: a torn tail, unless an intact keyframe follows.
            nxt = _next_keyframe(f, pos + 1, end)
            if nxt is None:
                torn = True
                break
            damage.append(Damage(pos, frames, "length runs past the next record", nxt))
            pos, need_key = nxt, False
            continue
        if problem is None and kind == EVENT:
            try:
                events.append(json.loads(payload))
            except ValueError:
                problem = "event is not JSON"
        if problem is None and kind in FRAME_KINDS and not keyframes and kind != KEYFRAME:
            problem = "a delta with no keyframe before it"
        if problem is not None:
            nxt = _next_keyframe(f, pos + 1, end)
            damage.append(Damage(pos, frames, problem, nxt))
            if nxt is None:
                break
            pos, need_key = nxt, False
            continue
        body_end = pos + HEAD.size + length
        if kind == KEYFRAME:
            keyframes.append((frames, ts, pos))
            need_key = False
        if kind in FRAME_KINDS and not need_key:
            frames += 1
            end_time = ts
            data_end = body_end
        elif kind == EVENT:
            data_end = body_end
        pos = body_end
    index = RecordingIndex(frames, keyframes, events, data_end, end_time, clean=False)
    return ScanResult(index, damage, torn, end)
