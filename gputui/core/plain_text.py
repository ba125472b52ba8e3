"""The one sanitiser for strings from data (files, jobs, other users, workload managers) before any output.

A terminal obeys control characters: ESC starts sequences that set the window title (OSC 0), clear the screen,
make hyperlinks (OSC 8) or write the clipboard (OSC 52); C1 controls (U+0080-U+009F, CSI among them) do the same
on many terminals; a carriage return lets a later text overwrite an earlier one; bidi overrides and isolates
make text read as something else. Each such character is shown visibly instead, as an escape a reader knows:
``\\x1b``, ``\\r``, ``\\n``, ``\\t``, ``\\x9b``, ``\\u202e`` (a lone surrogate from undecodable bytes, too), so the
damage stays visible and the line stays one line. kubectl fixed the same class of bug (CVE-2021-25743,
kubernetes/kubernetes pull 112553) by escaping ESC and ``\\r`` in every human-readable output; this escapes
every control character.

Markup is not handled here: sanitised strings are rendered as plain ``rich.text.Text`` (or printed as plain
lines), never parsed as Rich or Textual markup. :func:`plain_data` sanitises every string of a frozen
dataclass tree (a snapshot) in one walk, returning the very same object when nothing needed escaping.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitise(value: str) -> str:
    """``value`` as one line of plain text: every control and direction-changing character shown as an escape."""
    if _UNSAFE.search(value) is None:
        return value
    return _UNSAFE.sub(_escape, value)


def sanitise_lines(text: str) -> list[str]:
    """A multi-line text (a job's output, a batch script) as sanitised lines: line breaks stay breaks, a
    carriage return in a line (a progress bar's redraw) is shown, never obeyed."""
    return [sanitise(line) for line in text.split("\n")]


def is_plain(value: str) -> bool:
    """Whether ``value`` needs no escaping."""
    return _UNSAFE.search(value) is None


T = TypeVar("T")
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def plain_data(value: T) -> T:
    """``value`` with every string in it sanitised: frozen dataclasses, tuples, lists and dicts are walked, and
    an object whose strings are all plain comes back as itself (no copy), so a clean snapshot costs one walk."""
    return _walk(value)  # type: ignore[no-any-return]


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return sanitise(value)
    if value is None or isinstance(value, int | float):
        return value
    if isinstance(value, tuple):
        items = tuple(_walk(v) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, list):
        items_l = [_walk(v) for v in value]
        return value if all(a is b for a, b in zip(items_l, value, strict=True)) else items_l
    if isinstance(value, dict):
        pairs = {_walk(k): _walk(v) for k, v in value.items()}
        same = len(pairs) == len(value) and all(k in value and value[k] is v for k, v in pairs.items())
        return value if same else pairs
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for name in _fields(type(value)):
            old = getattr(value, name)
            new = _walk(old)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


def sanitise_block(text: str) -> str:
    """A multi-line text sanitised line by line and joined again (a notice, an error with a script's lines)."""
    return "\n".join(sanitise_lines(text))
