"""Terminal cell widths of strings, measured as rich measures them, so that a one-shot table and the dashboard agree
on every string (wide East Asian characters, combining marks, emoji sequences).

A string whose characters are each one cell wide (printable ASCII, Latin, Greek, Cyrillic, box drawing: rich's
own fast path; and the ellipsis, one cell in rich's tables, which cut text ends with) is measured here by its
length; any other string by ``rich.cells``, imported only then, so that a snapshot of plain names costs no import.
``rich.cells`` alone is light (no console, no styles).
"""

from __future__ import annotations

import re

#: a character outside the ranges that rich.cells treats as one cell each (``_SINGLE_CELL_UNICODE_RANGES``, plus …)
_NOT_SINGLE = re.compile("[^\x20-\x7e\xa0-\xac\xae-\u02ff\u0370-\u0482\u2026\u2500-\u25fc\u2800-\u28ff]")


def single_cells(text: str) -> bool:
    """Whether every character of ``text`` is one cell wide."""
    return _NOT_SINGLE.search(text) is None


def cell_len(text: str) -> int:
    """How many terminal cells ``text`` takes.

    Character by character as rich does it, through rich's cache of characters; a whole string goes to rich only
    when it joins characters (a zero-width joiner, a variation selector). rich's ``cell_len`` would keep every
    string it measures in its process-wide cache of 4,096 (a dashboard's changing values, each second)."""
    if single_cells(text):
        return len(text)
    if "\u200d" in text or "\ufe0f" in text:
        from rich.cells import cell_len as measure

        return measure(text)
    from rich.cells import get_character_cell_size as size

    return sum(map(size, text))


def set_cell_size(text: str, total: int) -> str:
    """``text`` cut or padded with spaces to exactly ``total`` cells (a wide character cut in half becomes a
    space)."""
    if single_cells(text):
        size = len(text)
        return text + " " * (total - size) if size < total else text[:total]
    from rich.cells import set_cell_size as fit

    return fit(text, total)


def chop_cells(text: str, width: int) -> list[str]:
    """``text`` cut into pieces of at most ``width`` cells (a long word folded across lines)."""
    if single_cells(text):
        return [text[i : i + width] for i in range(0, len(text), width)]
    from rich.cells import chop_cells as chop

    return chop(text, width)
