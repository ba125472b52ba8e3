"""Snapshot <-> plain JSON data, driven by the dataclasses' own type hints.

Every field is written, N/A as ``null``, so the JSON says explicitly what a source did not have.
Loading checks types and raises :class:`SnapshotFormatError` with the path of the bad value.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, TypeVar

from gputui.core.errors import SnapshotFormatError
from gputui.core.model import ClusterSnapshot, Event

T = TypeVar("T")


def to_data(obj: Any) -> Any:
    """Turn a snapshot (or any part of one) into JSON-ready dicts, lists and scalars."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_data(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, tuple | list):
        return [to_data(x) for x in obj]
    return obj


@cache
def _field_types(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        out.append((f.name, hints[f.name], has_default))
    return tuple(out)


def _convert(tp: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if origin is types.UnionType or origin is typing.Union:
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise SnapshotFormatError(f"{path}: null is not allowed here")
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value, path)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise SnapshotFormatError(f"{path}: expected a list, got {type(value).__name__}")
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise SnapshotFormatError(f"{path}: expected {len(args)} items, got {len(value)}")
        return tuple(_convert(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True)))
    if isinstance(tp, type) and is_dataclass(tp):
        return from_data(tp, value, path)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SnapshotFormatError(f"{path}: expected a number, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SnapshotFormatError(f"{path}: expected an integer, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise SnapshotFormatError(f"{path}: expected true or false, got {value!r}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise SnapshotFormatError(f"{path}: expected a string, got {value!r}")
        return value
    raise TypeError(f"unsupported field type {tp!r} at {path}")  # a bug in the model, not in the data


def from_data(cls: type[T], data: Any, path: str = "$") -> T:
    """Build ``cls`` from the output of :func:`to_data`, checking every value's type."""
    if not isinstance(data, dict):
        raise SnapshotFormatError(f"{path}: expected an object, got {type(data).__name__}")
    kwargs = {}
    for name, tp, has_default in _field_types(cls):
        if name in data:
            kwargs[name] = _convert(tp, data[name], f"{path}.{name}")
        elif not has_default:
            raise SnapshotFormatError(f"{path}: missing field '{name}'")
    return cls(**kwargs)


def snapshot_to_json(snap: ClusterSnapshot, indent: int | None = None) -> str:
    return json.dumps(to_data(snap), indent=indent, sort_keys=False)


def snapshot_from_json(text: str) -> ClusterSnapshot:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SnapshotFormatError(f"not JSON: {e}") from None
    return from_data(ClusterSnapshot, data)


def event_from_data(data: Any) -> Event:
    return from_data(Event, data)
