"""A keyed table drawn line by line: a refresh re-renders only visible rows whose data changed.

Textual's DataTable re-renders every visible cell after any update (its caches are keyed on a
global update counter), about 0.3 ms a cell: too slow for 64 GPUs refreshing every second. Here
each row holds plain data (a frozen snapshot part); its cells are built only when the row is on
screen and its data changed, rendered once into a cached Strip; the cursor and zebra stripes are
background styles laid over it, and the header stays fixed while the rows scroll.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

Row = tuple[str, object]  # key, the row's data (compared with ==; cells are built from it)
ColumnSpec = tuple[str, str, int]  # key, label, width in cells
_MISSING = object()


class RowTable(ScrollView, can_focus=True, inherit_bindings=False):
    """Rows identified by string keys; ``sync`` makes the table show exactly the given rows, in order.

    Subclasses implement ``row_cells(key, data)``, which turns a row's data into one Text per column.
    Only vertical keys are bound: left and right stay free for the app (replay steps).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First", show=False),
        Binding("end", "cursor_to(-1)", "Last", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rowtable--header",
        "rowtable--cursor",
        "rowtable--odd",
    }
    DEFAULT_CSS = """
    RowTable {
        height: auto;
        overflow-x: hidden;
        background: $surface;
        & > .rowtable--header { background: $panel; text-style: bold; }
        & > .rowtable--cursor { background: $primary 35%; text-style: bold; }
        & > .rowtable--odd { background: $foreground 4%; }
        &:blur > .rowtable--cursor { background: $primary 18%; text-style: none; }
    }
    """

    class RowHighlighted(Message):
        """The cursor moved onto another row (or the row under it was replaced)."""

        def __init__(self, table: RowTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> RowTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: list[ColumnSpec] = []
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        self._data: dict[str, object] = {}
        self._cells: dict[str, tuple[int, tuple[Text, ...]]] = {}  # key -> (version, cells)
        self._versions: dict[str, int] = {}
        self._version = 0
        self.cursor_row = 0
        self._highlighted: str | None = None
        self._lines: LRUCache[tuple[object, ...], Strip] = LRUCache(2048)
        self._cell_cache: LRUCache[tuple[object, ...], list[Segment]] = LRUCache(8192)
        self._styles: dict[str, Style] | None = None

    # -- data ----------------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self._order)

    @property
    def row_order(self) -> list[str]:
        return list(self._order)

    @property
    def cursor_key(self) -> str | None:
        return self._order[self.cursor_row] if self._order else None

    def row_cells(self, key: str, data: object) -> Sequence[Text]:
        raise NotImplementedError

    def get_row(self, key: str) -> tuple[Text, ...]:
        """The cells of row ``key`` as they are (or would be) drawn."""
        version = self._versions[key]
        hit = self._cells.get(key)
        if hit is None or hit[0] != version:
            hit = (version, tuple(self.row_cells(key, self._data[key])))
            self._cells[key] = hit
        return hit[1]

    def invalidate(self) -> None:
        """Rebuild every row's cells at the next draw (after a palette or layout change)."""
        for key in self._versions:
            self._version += 1
            self._versions[key] = self._version
        self._lines.clear()
        self.refresh()

    def set_columns(self, columns: Sequence[ColumnSpec]) -> None:
        """Replace the columns; the rows are kept only if ``sync`` is called again."""
        self.columns = list(columns)
        self._order, self._index, self._data, self._cells, self._versions = [], {}, {}, {}, {}
        self._lines.clear()
        self._update_virtual_size()
        self.refresh()

    def sync(self, rows: Sequence[Row]) -> int:
        """Show ``rows`` in order, keeping the cursor on its key; returns how many rows changed."""
        keys = [k for k, _ in rows]
        reordered = keys != self._order
        if reordered:
            keep, keep_row = self.cursor_key, self.cursor_row
            self._order = keys
            self._index = {k: i for i, k in enumerate(keys)}
            for gone in set(self._data) - set(self._index):
                del self._data[gone], self._versions[gone]
                self._cells.pop(gone, None)
            self.cursor_row = max(0, self._index[keep] if keep in self._index else min(keep_row, len(keys) - 1))
            self._update_virtual_size()
        changed = 0
        for key, data in rows:
            prev = self._data.get(key, _MISSING)
            if prev is data or prev == data:
                continue
            self._data[key] = data
            self._version += 1
            self._versions[key] = self._version
            changed += 1
        if changed or reordered:
            self.refresh()
        if reordered:
            self._scroll_cursor_into_view()
        self._post_highlight()
        return changed

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row ``key``; False if there is no such row."""
        if key not in self._index:
            return False
        self._move_cursor(self._index[key])
        return True

    # -- cursor --------------------------------------------------------------------------------
    def _move_cursor(self, row: int) -> None:
        if not self._order:
            return
        row = min(max(row, 0), len(self._order) - 1)
        if row != self.cursor_row:
            self.cursor_row = row
            self.refresh()
        self._scroll_cursor_into_view()
        self._post_highlight()

    def _post_highlight(self) -> None:
        key = self.cursor_key
        if key != self._highlighted:
            self._highlighted = key
            self.post_message(self.RowHighlighted(self, key))

    def _scroll_cursor_into_view(self) -> None:
        visible = max(1, self.scrollable_content_region.height - 1)
        top = int(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self._move_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self._move_cursor(self.cursor_row + direction * max(1, self.scrollable_content_region.height - 2))

    def action_cursor_to(self, row: int) -> None:
        self._move_cursor(row if row >= 0 else len(self._order) - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self._move_cursor(int(self.scroll_y) + event.y - 1)

    # -- drawing -------------------------------------------------------------------------------
    def _update_virtual_size(self) -> None:
        width = sum(w + 2 for _, _, w in self.columns)
        self.virtual_size = Size(width, len(self._order) + 1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._lines.clear()
        self._cell_cache.clear()

    def _style(self, name: str) -> Style:
        if self._styles is None:
            self._styles = {
                "base": self.rich_style,
                "header": self.get_component_rich_style("rowtable--header"),
                "cursor": self.get_component_rich_style("rowtable--cursor"),
                "odd": self.get_component_rich_style("rowtable--odd"),
            }
        return self._styles[name]

    def _cell_segments(self, cell: Text, w: int, over: Style) -> list[Segment]:
        """One padded cell as styled segments; cached, since most cells of a changed row did not change."""
        key = (cell.plain, cell.style, tuple(cell.spans), cell.justify, w, over)
        hit = self._cell_cache.get(key)
        if hit is not None:
            return hit
        text = cell.copy()
        text.truncate(w, overflow="ellipsis")
        pad = w - text.cell_len
        if pad > 0:
            if cell.justify == "right":
                text.pad_left(pad)
            else:
                text.pad_right(pad)
        text.pad(1)
        console = self.app.console
        # Text.render leaves out the Text's own base style; __rich_console__ would add it, so add it here.
        own = cell.style if isinstance(cell.style, Style) else console.get_style(cell.style, default=Style())
        segments = list(Segment.apply_style(text.render(console), self._style("base") + own, over))
        self._cell_cache[key] = segments
        return segments

    def _render_cells(self, cells: Sequence[Text], width: int, over: Style) -> Strip:
        segments: list[Segment] = []
        used = 0
        for cell, (_, _, w) in zip(cells, self.columns, strict=False):
            segments.extend(self._cell_segments(cell, w, over))
            used += w + 2
        if used < width:
            segments.append(Segment(" " * (width - used), self._style("base") + over))
            return Strip(segments, width)
        return Strip(segments, used).crop(0, width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        focused = self.has_focus
        if y == 0:
            key: tuple[object, ...] = ("header", width, len(self.columns))
            strip = self._lines.get(key)
            if strip is None:
                header = [Text(label, no_wrap=True) for _, label, _ in self.columns]
                strip = self._render_cells(header, width, self._style("header"))
                self._lines[key] = strip
            return strip
        index = int(self.scroll_y) + y - 1
        if index >= len(self._order):
            return Strip.blank(width, self._style("base"))
        row_key = self._order[index]
        cursor = index == self.cursor_row
        odd = index % 2 == 1
        key = (row_key, self._versions[row_key], cursor, odd, width, focused and cursor)
        strip = self._lines.get(key)
        if strip is None:
            over = self._style("cursor") if cursor else self._style("odd") if odd else Style()
            # Row styles only set background and weight: the cells' own colours carry meaning.
            over = Style(bgcolor=over.bgcolor, bold=over.bold)
            strip = self._render_cells(self.get_row(row_key), width, over)
            self._lines[key] = strip
        return strip
