"""Whole numbers read from text (options, host ranges, theme files) with their size bounded before conversion.

Python refuses to convert a string of more than 4,300 digits (a ``ValueError`` that would end as a traceback),
and a number that converts may still be too large for SQLite's 64-bit integers or for memory. Every reader of
numbers in requests and specs checks the digit count first and refuses with one line naming the option.
"""

from __future__ import annotations

from gputui.core.plain_text import sanitise

MAX_DIGITS = 12  # no count, size, index or time in a request needs more; fits an SQLite integer many times over


def cut(text: str, limit: int = 40) -> str:
    """``text`` for an error line, sanitised (a line break typed into an option cannot start a line of its own)
    and cut to ``limit`` characters (a 5,000-digit typo is not echoed whole)."""
    shown_text = sanitise(text)
    return shown_text if len(shown_text) <= limit else shown_text[:limit] + f"… ({len(text)} characters)"


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error line, cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} characters)"


def too_long(digits: str, limit: int = MAX_DIGITS) -> bool:
    """Whether a string of digits (a sign allowed) has more significant digits than ``limit`` (or is padded with
    zeros beyond any use: Python's conversion limit counts those too)."""
    d = digits.strip().lstrip("+-")
    return len(d) > 64 or len(d.lstrip("0")) > limit
