"""What the one-shot output knows of its terminal, decided as rich's Console decides it (so that `gputui snapshot`
behaves as it did when it printed through rich): the width, whether to write colour, whether to draw boxes in
ASCII.

- Width: ``COLUMNS`` when it is a number (on a dumb terminal only with ``LINES`` too, else 80 there), else the size
  of the first of stdin, stdout and stderr that is a terminal, else 80.
- A terminal: ``TTY_COMPATIBLE=1`` or ``0`` decides; else ``FORCE_COLOR`` set (non-empty: yes, empty: no); else
  whether the stream is a tty. Colour only on a terminal whose ``TERM`` is not ``dumb`` or ``unknown``;
  ``NO_COLOR`` (non-empty) drops the colours and keeps bold, dim and italic, as rich does.
- Boxes in ASCII when the stream's encoding is not a UTF one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple, TextIO


class Terminal(NamedTuple):  # a named tuple: immutable, and cheaper to define than a frozen dataclass
    width: int
    is_terminal: bool  # a terminal (piped output is not): free text is cut there, wrapped when piped
    colour: bool  # whether escape sequences are written at all
    no_color: bool = False  # NO_COLOR: attributes without colours
    ascii_only: bool = False

    @classmethod
    def of(cls, stream: TextIO, environ: Mapping[str, str] | None = None) -> Terminal:
        env = os.environ if environ is None else environ
        is_terminal = _is_terminal(stream, env)
        dumb = is_terminal and env.get("TERM", "").lower() in ("dumb", "unknown")
        encoding = (getattr(stream, "encoding", "utf-8") or "utf-8").lower()
        return cls(
            width=_width(env, dumb),
            is_terminal=is_terminal,
            colour=is_terminal and not dumb,
            no_color=env.get("NO_COLOR", "") != "",
            ascii_only=not encoding.startswith("utf"),
        )


def _is_terminal(stream: TextIO, env: Mapping[str, str]) -> bool:
    compatible = env.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = env.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    isatty = getattr(stream, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:  # a closed stream
        return False


def _width(env: Mapping[str, str], dumb: bool) -> int:
    columns, lines = (_number(env.get(name)) for name in ("COLUMNS", "LINES"))
    if columns is not None and lines is not None:
        return columns
    if dumb:
        return 80  # as rich: a dumb terminal is 80 wide unless COLUMNS and LINES both say otherwise
    if columns is not None:
        return columns
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):  # not a terminal
            continue
        return width or 80
    return 80


def _number(value: str | None) -> int | None:
    return int(value) if value is not None and value.isascii() and value.isdigit() else None
