"""Delta frames: the leaves that changed between two snapshots' plain data, packed as bytes.

A frame's data is nested dicts and lists (see ``gputui.core.serialize.to_data``). The diff walks both
trees; a list whose length changed is sent whole. Paths are interned per segment (keyframe to
keyframe): the first use of a path carries its text, later uses only its number, so a typical
changed value costs 3 to 5 bytes.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from typing import Any

# Value tags (low 3 bits of each op's head varint).
_NONE, _INT, _FLOAT2, _FLOAT8, _STR, _TRUE, _FALSE, _JSON = range(8)
_SEP = "/"


def diff(old: Any, new: Any, path: str = "", out: list[tuple[str, Any]] | None = None) -> list[tuple[str, Any]]:
    """(path, new value) for every leaf that differs; containers that changed shape come whole."""
    if out is None:
        out = []
    if type(old) is dict and type(new) is dict:
        if old.keys() != new.keys():
            out.append((path, new))
            return out
        for k, v in new.items():
            ov = old[k]
            if ov is not v and ov != v:
                diff(ov, v, f"{path}{_SEP}{k}" if path else k, out)
        return out
    if type(old) is list and type(new) is list and len(old) == len(new):
        for i, (ov, v) in enumerate(zip(old, new, strict=True)):
            if ov != v:
                diff(ov, v, f"{path}{_SEP}{i}" if path else str(i), out)
        return out
    if type(old) is not type(new) or old != new:
        out.append((path, new))
    return out


def _put_varint(buf: bytearray, n: int) -> None:
    while n >= 0x80:
        buf.append((n & 0x7F) | 0x80)
        n >>= 7
    buf.append(n)


def _get_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _zigzag(n: int) -> int:
    return (n << 1) if n >= 0 else ((-n << 1) - 1)


def _unzigzag(n: int) -> int:
    return (n >> 1) if not n & 1 else -((n + 1) >> 1)


class PathTable:
    """Path <-> number for one segment; writer and reader grow it in the same order."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.paths: list[str] = []
        self.steps: list[tuple[str | int, ...]] = []  # each path split, list indices as ints

    def reset(self) -> None:
        self.ids.clear()
        self.paths.clear()
        self.steps.clear()

    def add(self, path: str) -> int:
        pid = len(self.paths)
        self.ids[path] = pid
        self.paths.append(path)
        self.steps.append(tuple(int(p) if p.isdigit() else p for p in path.split(_SEP)) if path else ())
        return pid


def encode(changes: list[tuple[str, Any]], table: PathTable) -> bytes:
    buf = bytearray()
    for path, value in changes:
        pid = table.ids.get(path)
        new_path = pid is None
        if pid is None:
            pid = table.add(path)
        if value is None:
            tag = _NONE
        elif value is True:
            tag = _TRUE
        elif value is False:
            tag = _FALSE
        elif type(value) is int:
            tag = _INT
        elif type(value) is float:
            scaled = round(value * 100)
            tag = _FLOAT2 if abs(scaled) < 1 << 53 and scaled / 100 == value else _FLOAT8
        elif type(value) is str:
            tag = _STR
        else:
            tag = _JSON
        # head: path id, a "new path" bit, and the tag
        _put_varint(buf, (pid << 4) | (int(new_path) << 3) | tag)
        if new_path:
            raw = path.encode()
            _put_varint(buf, len(raw))
            buf += raw
        if tag == _INT:
            _put_varint(buf, _zigzag(value))
        elif tag == _FLOAT2:
            _put_varint(buf, _zigzag(round(value * 100)))
        elif tag == _FLOAT8:
            buf += struct.pack("<d", value)
        elif tag in (_STR, _JSON):
            raw = (value if tag == _STR else json.dumps(value, separators=(",", ":"))).encode()
            _put_varint(buf, len(raw))
            buf += raw
    return bytes(buf)


def _values(data: bytes | memoryview, table: PathTable) -> Iterator[tuple[int, Any]]:
    """(path id, value) for each op of an encoded delta, growing ``table`` with new paths."""
    pos, end = 0, len(data)
    while pos < end:
        head = data[pos]
        pos += 1
        if head >= 0x80:
            head, pos = _get_varint(data, pos - 1)
        tag, pid = head & 7, head >> 4
        if head & 8:
            n, pos = _get_varint(data, pos)
            if pid != len(table.paths):
                raise ValueError("path table out of step")
            table.add(bytes(data[pos : pos + n]).decode())
            pos += n
        value: Any
        if tag in (_INT, _FLOAT2):
            z = data[pos]
            pos += 1
            if z >= 0x80:
                z, pos = _get_varint(data, pos - 1)
            value = (z >> 1) if not z & 1 else -((z + 1) >> 1)
            if tag == _FLOAT2:
                value /= 100
        elif tag == _NONE:
            value = None
        elif tag == _TRUE:
            value = True
        elif tag == _FALSE:
            value = False
        elif tag == _FLOAT8:
            (value,) = struct.unpack_from("<d", data, pos)
            pos += 8
        else:
            n, pos = _get_varint(data, pos)
            raw = bytes(data[pos : pos + n]).decode()
            pos += n
            value = raw if tag == _STR else json.loads(raw)
        yield pid, value


def decode(data: bytes | memoryview, table: PathTable) -> list[tuple[str, Any]]:
    """The (path, value) changes of an encoded delta."""
    return [(table.paths[pid], value) for pid, value in _values(data, table)]


def apply_encoded(state: Any, data: bytes | memoryview, table: PathTable) -> Any:
    """Decode and apply in one pass (the hot path of seeking); returns the root."""
    steps = table.steps
    for pid, value in _values(data, table):
        path = steps[pid]
        if not path:
            state = value
            continue
        node = state
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
    return state
