"""What a controller answers the shell with: plain data that the UI turns into a toast or a dialog.

Texts are ``Pieces``: strings, or (string, style name) pairs such as ("42", "bold"), so that a controller can
say what to stress without knowing how it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Piece = str | tuple[str, str]
Pieces = tuple[Piece, ...]
Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Notice:
    """A line to show the user for a while."""

    text: str
    severity: Severity = "information"
    timeout: float | None = None  # seconds; None: the shell's default
    title: str = ""


@dataclass(frozen=True, slots=True)
class Confirm:
    """A yes/no question to ask before doing something."""

    title: str
    body: Pieces
    yes: str = "Yes"
    no: str = "No"


@dataclass(frozen=True, slots=True)
class Choice:
    """One of several things to pick: (key, label) options."""

    title: str
    options: tuple[tuple[str, Pieces], ...]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A line of text to ask for, with its default and a check that says what is wrong with an answer."""

    title: str
    label: str
    default: str
    check: Callable[[str], str | None]
