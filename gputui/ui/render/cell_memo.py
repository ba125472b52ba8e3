"""Memoised table cells: equal values share one Text, which the table turns into segments only once.

Most cells of a refreshing GPU table repeat values seen a moment ago (a utilization of 37 %, a
temperature of 61 °C); building and rendering a Rich Text for them again is most of a row's cost.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from rich.text import Text

LIMIT = 20_000


class CellMemo:
    """Cells by key; emptied when full (refilling costs one frame) and when the palette or layout changes."""

    def __init__(self) -> None:
        self._cells: dict[Hashable, Text] = {}

    def __len__(self) -> int:
        return len(self._cells)

    def get(self, key: Hashable, make: Callable[..., Text], *args: Any) -> Text:
        """The cell for ``key``, made by ``make(*args)`` the first time; every argument must be in ``key``."""
        hit = self._cells.get(key)
        if hit is None:
            if len(self._cells) >= LIMIT:
                self._cells.clear()
            hit = self._cells[key] = make(*args)
        return hit

    def clear(self) -> None:
        self._cells.clear()
