"""Values of Slurm's JSON in both generations of its shapes.

22.05 (openapi v0.0.38) prints plain numbers, ``null`` for unset or infinite ones, and states as one string
(``"mixed"`` plus ``state_flags``). From data_parser v0.0.40 on (Slurm 23.11+) a number may be an object
``{"set": bool, "infinite": bool, "number": n}`` and a state a list (``["MIXED", "DRAIN"]``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gputui.slurm.errors import SlurmError


def number(v: Any) -> int | None:
    """An integer, or None when unset or infinite (in either shape)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v)
    if isinstance(v, Mapping):
        if v.get("infinite") or v.get("set") is False:
            return None
        return number(v.get("number"))
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    return None


def infinite(v: Any) -> bool:
    """Whether a number is marked infinite (v0.0.40+ only; 22.05 prints null for both unset and infinite)."""
    return isinstance(v, Mapping) and bool(v.get("infinite"))


def text(v: Any) -> str | None:
    """A string, or None for null, empty and Slurm's ``(null)``."""
    if v is None:
        return None
    if isinstance(v, str):
        s = v.strip()
        return None if s in ("", "(null)", "N/A") else s
    if isinstance(v, list):
        return ",".join(str(x) for x in v) or None
    return str(v)


def words(v: Any) -> tuple[str, ...]:
    """A state or flag list: ``"mixed"`` -> ("MIXED",), ``["IDLE", "DRAIN"]`` -> ("IDLE", "DRAIN")."""
    if v is None:
        return ()
    if isinstance(v, str):
        return tuple(w.upper() for w in v.replace("+", " ").split()) if v.strip() else ()
    if isinstance(v, list):
        return tuple(str(x).upper() for x in v if str(x).strip())
    return (str(v).upper(),)


def parse(text_: str, command: str) -> dict[str, Any]:
    """A command's JSON output as a dict; empty, cut short or malformed output is a SlurmError."""
    try:
        data = json.loads(text_)
    except json.JSONDecodeError as e:
        what = "is empty" if not text_.strip() else f"is not valid JSON ({e.msg} at line {e.lineno})"
        raise SlurmError(f"{command}: its output {what}") from None
    if not isinstance(data, dict):
        raise SlurmError(f"{command}: expected a JSON object, got {type(data).__name__}")
    return data


def reported_error(data: Mapping[str, Any]) -> str | None:
    """The first entry of Slurm's ``errors`` list in one line (squeue exits 0 with it), or None."""
    errors = data.get("errors") or []
    return error_text(errors[0]) if isinstance(errors, list) and errors else None


def require(data: Mapping[str, Any], command: str, list_keys: tuple[str, ...]) -> None:
    if not any(isinstance(data.get(k), list) for k in list_keys):
        raise SlurmError(f"{command}: no {' or '.join(repr(k) for k in list_keys)} list in its output")


def load(text_: str, command: str, list_keys: tuple[str, ...]) -> dict[str, Any]:
    """:func:`parse`, then Slurm's own error or a missing list as a SlurmError."""
    data = parse(text_, command)
    err = reported_error(data)
    if err is not None:
        raise SlurmError(f"{command}: {err}")
    require(data, command, list_keys)
    return data


def error_text(err: Any) -> str:
    """One line from an entry of Slurm's JSON ``errors`` list."""
    if not isinstance(err, Mapping):
        return str(err)
    desc, code, source = text(err.get("description")), text(err.get("error")), text(err.get("source"))
    both = desc and code and code != desc
    line = f"{desc} ({code})" if both else (desc or code or "failed (no description)")
    return f"{line} [{source}]" if source else line
