"""Memoised table cells: equal values share one Text, which the table turns into segments only once.

Most cells of a refreshing GPU table repeat values seen a moment ago (a utilization of 37 %, a
temperature of 61 °C); building and rendering a Rich Text for them again is most of a row's cost.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from rich.text import Text

from gputui.ui.render.byte_bound import ByteBound, text_bytes

#: bytes per generation (see byte_bound.py): tens of thousands of small cells, a few large tables' worth
BUDGET = 1024 * 1024
#: the same, for the overview's per-column memos (a few distinct values a column)
COLUMN_BUDGET = 128 * 1024


class CellMemo:
    """Cells by key, bounded by bytes in two generations (a cell in use survives the turn-over); emptied when the
    palette or layout changes."""

    def __init__(self) -> None:
        self._cells: ByteBound[Text] = ByteBound(BUDGET, text_bytes)

    def __len__(self) -> int:
        return len(self._cells)

    def get(self, key: Hashable, make: Callable[..., Text], *args: Any) -> Text:
        """The cell for ``key``, made by ``make(*args)`` the first time; every argument must be in ``key``."""
        hit = self._cells.new.get(key)
        if hit is None:
            hit = self._cells.get(key)
            if hit is None:
                hit = make(*args)
                self._cells.put(key, hit)
        return hit

    def clear(self) -> None:
        self._cells.clear()
