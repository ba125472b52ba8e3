"""The row table's messages; their handlers are ``on_row_table_row_highlighted`` / ``..._selected``, as when
they were classes inside :class:`~gputui.ui.render.row_table.RowTable` (which still offers them by those names)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from gputui.ui.render.row_table import RowTable


class RowHighlighted(Message, namespace="row_table"):
    """The cursor moved onto another row (or the row under it was replaced)."""

    def __init__(self, table: RowTable, key: str | None) -> None:
        super().__init__()
        self.table = table
        self.key = key

    @property
    def control(self) -> RowTable:
        return self.table


class RowSelected(Message, namespace="row_table"):
    """Enter was pressed on a row (or it was clicked twice)."""

    def __init__(self, table: RowTable, key: str) -> None:
        super().__init__()
        self.table = table
        self.key = key

    @property
    def control(self) -> RowTable:
        return self.table
