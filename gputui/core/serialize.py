"""Snapshot <-> plain JSON data, driven by the dataclasses' own type hints.

Every field is written, N/A as ``null``, so the JSON says explicitly what a source did not have.
Loading checks types and raises :class:`SnapshotFormatError` with the path of the bad value. The
converters are compiled once per type, since replays load a snapshot for every frame shown.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, TypeVar

from gputui.core.errors import SnapshotFormatError
from gputui.core.model import ClusterSnapshot, Event

T = TypeVar("T")
Converter = Callable[[Any], Any]


class _Bad(Exception):
    """A type mismatch on its way up; each level adds its part of the path."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.parts: list[str] = []


@cache
def _names(cls: Any) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def to_data(obj: Any) -> Any:
    """Turn a snapshot (or any part of one) into JSON-ready dicts, lists and scalars."""
    cls: Any = type(obj)
    if cls is tuple or cls is list:
        return [to_data(x) for x in obj]
    if hasattr(cls, "__dataclass_fields__"):
        return {n: to_data(getattr(obj, n)) for n in _names(cls)}
    return obj


def _scalar(tp: type, what: str) -> Converter:
    def convert(value: Any) -> Any:
        if type(value) is tp:
            return value
        if tp is float and type(value) is int:
            return float(value)
        raise _Bad(f"expected {what}, got {value!r}")

    return convert


@cache
def _compile(tp: Any) -> Converter:
    origin = typing.get_origin(tp)
    if origin is types.UnionType or origin is typing.Union:
        args = typing.get_args(tp)
        inner = [a for a in args if a is not type(None)]
        conv = _compile(inner[0])
        nullable = type(None) in args

        def union(value: Any) -> Any:
            if value is None:
                if nullable:
                    return None
                raise _Bad("null is not allowed here")
            return conv(value)

        return union
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _compile(args[0])

            def var_tuple(value: Any) -> Any:
                if type(value) is not list and type(value) is not tuple:
                    raise _Bad(f"expected a list, got {type(value).__name__}")
                out = []
                for i, v in enumerate(value):
                    try:
                        out.append(item(v))
                    except _Bad as e:
                        e.parts.append(f"[{i}]")
                        raise
                return tuple(out)

            return var_tuple
        items = [_compile(a) for a in args]

        def fixed_tuple(value: Any) -> Any:
            if type(value) is not list and type(value) is not tuple or len(value) != len(items):
                raise _Bad(f"expected a list of {len(items)} items")
            return tuple(c(v) for c, v in zip(items, value, strict=True))

        return fixed_tuple
    if isinstance(tp, type) and is_dataclass(tp):
        return _compile_dataclass(tp)
    for scalar, what in ((float, "a number"), (int, "an integer"), (bool, "true or false"), (str, "a string")):
        if tp is scalar:
            return _scalar(scalar, what)
    raise TypeError(f"unsupported field type {tp!r}")  # a bug in the model, not in the data


def _compile_dataclass(cls: type) -> Converter:
    hints = typing.get_type_hints(cls)
    spec = [
        (f.name, _compile(hints[f.name]), f.default is not MISSING or f.default_factory is not MISSING)
        for f in fields(cls)
    ]

    def convert(value: Any) -> Any:
        if type(value) is not dict:
            raise _Bad(f"expected an object, got {type(value).__name__}")
        kwargs = {}
        for name, conv, has_default in spec:
            if name in value:
                try:
                    kwargs[name] = conv(value[name])
                except _Bad as e:
                    e.parts.append(f".{name}")
                    raise
            elif not has_default:
                raise _Bad(f"missing field '{name}'")
        return cls(**kwargs)

    return convert


def from_data(cls: type[T], data: Any, path: str = "$") -> T:
    """Build ``cls`` from the output of :func:`to_data`, checking every value's type."""
    try:
        return typing.cast(T, _compile(typing.cast(Any, cls))(data))
    except _Bad as e:
        raise SnapshotFormatError(f"{path}{''.join(reversed(e.parts))}: {e.message}") from None


def snapshot_to_json(snap: ClusterSnapshot, indent: int | None = None) -> str:
    return json.dumps(to_data(snap), indent=indent)


def snapshot_from_json(text: str) -> ClusterSnapshot:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SnapshotFormatError(f"not JSON: {e}") from None
    return from_data(ClusterSnapshot, data)


def event_from_data(data: Any) -> Event:
    return from_data(Event, data)
