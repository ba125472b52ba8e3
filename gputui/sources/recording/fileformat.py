"""The gputui recording file: a header line, then checksummed records appended one by one.

Layout (all integers little-endian)::

    b"GPUTUI-REC\\n"  then one JSON line: {"format": "gputui-recording", "schema": 1, ...}
    record*        each: kind (1 byte) | payload length (u32) | timestamp (f64) | crc32 (u32) | payload

Record kinds: K keyframe (zlib JSON of the whole frame), D delta (see delta.py), E event (JSON),
X index (zlib JSON: keyframe offsets, frame count, events) and T trailer (u64 offset of the last X),
written by a clean close. A reader that finds no valid trailer rebuilds the index by scanning and
stops at the first torn record, so a crash loses at most the frame being written.

Frames hold the snapshot model's plain data, so a field added to the model with a default (node resources,
features) needs no new schema: older files lack the key and load with the default (N/A). The schema number is
for changes that an older reader would misread.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass

from gputui.core.errors import RecordingError

MAGIC = b"GPUTUI-REC\n"
SCHEMA_VERSION = 1
FORMAT_NAME = "gputui-recording"
HEAD = struct.Struct("<cIdI")  # kind, payload length, timestamp, crc32
KEYFRAME, DELTA, EVENT, INDEX, TRAILER = b"K", b"D", b"E", b"X", b"T"
FRAME_KINDS = (KEYFRAME, DELTA)
TRAILER_SIZE = HEAD.size + 8
MAX_PAYLOAD = 256 << 20  # a length above this is damage, not data


def pack_record(kind: bytes, timestamp: float, payload: bytes) -> bytes:
    crc = zlib.crc32(payload, zlib.crc32(kind + struct.pack("<Id", len(payload), timestamp)))
    return HEAD.pack(kind, len(payload), timestamp, crc) + payload


def record_ok(kind: bytes, length: int, timestamp: float, crc: int, payload: bytes | memoryview) -> bool:
    return zlib.crc32(payload, zlib.crc32(kind + struct.pack("<Id", length, timestamp))) == crc


def header_bytes(meta: dict) -> bytes:
    extra = {k: v for k, v in meta.items() if k not in ("format", "schema")}  # the format keys always win
    full = {"format": FORMAT_NAME, "schema": SCHEMA_VERSION, **extra}
    return MAGIC + json.dumps(full, separators=(",", ":")).encode() + b"\n"


def read_header(data: bytes, name: str) -> tuple[dict, int]:
    """Parse the header at the start of ``data``; returns it and the offset of the first record."""
    if not data.startswith(MAGIC):
        raise RecordingError(f"{name}: not a gputui recording (expected a file starting with 'GPUTUI-REC')")
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        raise RecordingError(f"{name}: recording header is truncated")
    try:
        meta = json.loads(data[len(MAGIC) : end])
    except ValueError:
        raise RecordingError(f"{name}: recording header is not valid JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise RecordingError(f"{name}: recording header does not name the format '{FORMAT_NAME}'")
    schema = meta.get("schema")
    if schema != SCHEMA_VERSION:
        raise RecordingError(
            f"{name}: recording schema {schema} is not supported (this gputui reads schema {SCHEMA_VERSION})"
        )
    return meta, end + 1


@dataclass
class RecordingIndex:
    """Where the frames are: enough to seek without reading the whole file."""

    frame_count: int
    keyframes: list[tuple[int, float, int]]  # (frame number, timestamp, file offset)
    events: list[dict]
    data_end: int  # offset after the last frame/event record
    end_time: float | None
    clean: bool  # True when read from a trailer, False when rebuilt by a scan

    def to_payload(self) -> bytes:
        body = {
            "frames": self.frame_count,
            "keyframes": self.keyframes,
            "events": self.events,
            "data_end": self.data_end,
            "end_time": self.end_time,
        }
        return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 6)

    @classmethod
    def from_payload(cls, payload: bytes) -> RecordingIndex:
        body = json.loads(zlib.decompress(payload))
        return cls(
            frame_count=body["frames"],
            keyframes=[(int(f), float(t), int(o)) for f, t, o in body["keyframes"]],
            events=body["events"],
            data_end=body["data_end"],
            end_time=body["end_time"],
            clean=True,
        )


def read_trailer_index(f, size: int, first_record: int) -> RecordingIndex | None:  # type: ignore[no-untyped-def]
    """The index a clean close left at the end of the file, or None if there is none (or it is bad)."""
    if size < first_record + TRAILER_SIZE:
        return None
    f.seek(size - TRAILER_SIZE)
    tail = f.read(TRAILER_SIZE)
    kind, length, ts, crc = HEAD.unpack_from(tail)
    payload = tail[HEAD.size :]
    if kind != TRAILER or length != 8 or not record_ok(kind, length, ts, crc, payload):
        return None
    (x_offset,) = struct.unpack("<Q", payload)
    if not first_record <= x_offset < size - TRAILER_SIZE:
        return None
    f.seek(x_offset)
    head = f.read(HEAD.size)
    if len(head) < HEAD.size:
        return None
    kind, length, ts, crc = HEAD.unpack_from(head)
    if kind != INDEX or x_offset + HEAD.size + length != size - TRAILER_SIZE:
        return None
    payload = f.read(length)
    if not record_ok(kind, length, ts, crc, payload):
        return None
    try:
        return RecordingIndex.from_payload(payload)
    except (ValueError, KeyError, TypeError, zlib.error):
        return None
