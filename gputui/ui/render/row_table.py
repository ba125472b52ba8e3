"""A keyed table drawn line by line: a refresh repaints only the visible lines whose row data changed.

Textual's DataTable re-renders every visible cell after any update (its caches are keyed on a
global update counter), about 0.3 ms a cell: too slow for 64 GPUs refreshing every second. Here
each row holds plain data (a frozen snapshot part); its cells are built only when the row is on
screen and its data changed, and only the lines of changed rows are marked dirty. Cells that
subclasses memoise (the same Text object for the same value) are turned into segments once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, TypeAlias

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from gputui.ui.render import row_order
from gputui.ui.render.byte_bound import REFIT_EVERY, ByteBound, frame_bytes, strip_bytes
from gputui.ui.render.cell_segments import CellEntry, cell_entry, entry_bytes
from gputui.ui.render.direct_lines import DirectLines, KeptScrollBar
from gputui.ui.render.lean_strip import LeanStrip
from gputui.ui.render.row_messages import RowHighlighted as _RowHighlighted
from gputui.ui.render.row_messages import RowSelected as _RowSelected
from gputui.ui.render.row_order import ColumnSpec, Row

_MISSING = object()
_OVERS = ("none", "odd", "cursor", "header")  # row styles laid over cells, by number (see RowTable._over)
# Bytes per generation of the line and cell caches (see byte_bound.py): several full frames of a large table.
# (until the first frame sizes them to what the table shows)
_LINES_BUDGET = 64 * 1024
_SEGMENTS_BUDGET = 64 * 1024


class RowTable(DirectLines, ScrollView, can_focus=True, inherit_bindings=False):
    """Rows identified by string keys; ``sync`` makes the table show exactly the given rows.

    Subclasses implement ``row_cells(key, data)`` (one Text per column) and, to sort,
    ``sort_value(column, data)``. Only vertical keys are bound: left and right stay free for the
    app (replay steps). A click on the header sorts by that column; a second click reverses.
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

    RowHighlighted: TypeAlias = _RowHighlighted
    RowSelected: TypeAlias = _RowSelected

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.columns: list[ColumnSpec] = []
        self._widths: list[int] = []
        self.sortable: frozenset[str] = frozenset()  # column keys a click or a key may sort by
        self.sort_column: str | None = None
        self.sort_reverse = False
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        self._data: dict[str, object] = {}
        self._cells: dict[str, tuple[int, tuple[Text, ...]]] = {}  # key -> (version, cells)
        self._versions: dict[str, int] = {}
        self._version = 0
        self.cursor_row = 0
        self._highlighted: str | None = None
        # Bounded by bytes in two generations (byte_bound.py): the hot loop reads the new one's dict.
        self._lines: ByteBound[Strip] = ByteBound(_LINES_BUDGET, strip_bytes)
        self._segments: ByteBound[CellEntry] = ByteBound(_SEGMENTS_BUDGET, entry_bytes)
        self._fits = 0  # calls since the caches were last sized, modulo REFIT_EVERY
        self._styles: dict[str, Style] | None = None
        self._overs: list[Style] | None = None
        self._pads: dict[tuple[int, int], Segment] = {}
        self._blank: Strip | None = None

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

    def sort_value(self, column: str, data: object) -> object:
        """The value rows are ordered by for ``column``; None sorts last in both directions."""
        return None

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
        self._segments.clear()
        self.refresh()

    def set_columns(self, columns: Sequence[ColumnSpec]) -> None:
        """Replace the columns; the rows are kept only if ``sync`` is called again."""
        self.columns = list(columns)
        self._widths = [w for _, _, w in self.columns]
        self._order, self._index, self._data, self._cells, self._versions = [], {}, {}, {}, {}
        self._lines.clear()
        self._update_virtual_size()
        self.refresh()

    def sync(self, rows: Sequence[Row]) -> int:
        """Show ``rows`` (sorted if a sort column is set), keeping the cursor on its key; returns rows changed."""
        if self.sort_column is not None:
            rows = row_order.sorted_rows(rows, self.sort_column, self.sort_reverse, self.sort_value)
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
        changed: list[int] = []
        for i, (key, data) in enumerate(rows):
            prev = self._data.get(key, _MISSING)
            if prev is data or prev == data:
                continue
            self._data[key] = data
            self._version += 1
            self._versions[key] = self._version
            changed.append(i)
        if reordered:
            self.refresh()
            self._scroll_cursor_into_view()
        elif changed:
            self._refresh_rows(changed)
        self._post_highlight()
        return len(changed)

    def _refresh_rows(self, indexes: list[int]) -> None:
        """Mark the lines of the given rows dirty: only those are rendered and sent to the terminal again."""
        top, height, width = int(self.scroll_y), self.scrollable_content_region.height, self.size.width
        if height <= 0 or width <= 0:
            self.refresh()
            return
        regions = row_order.row_regions(indexes, top, height, width)
        if regions:
            self.refresh(*regions)

    def resort(self) -> None:
        """Apply a changed sort column or direction to the rows shown now."""
        self.sync([(k, self._data[k]) for k in self._order])
        self._lines.clear()
        self.refresh()

    def sort_by(self, column: str | None, reverse: bool | None = None) -> None:
        """Sort by ``column`` (None: the order the owner gives); ``reverse`` None keeps the direction."""
        if column is not None and column not in self.sortable:
            return
        self.sort_column = column
        if reverse is not None:
            self.sort_reverse = reverse
        self.resort()

    def cycle_sort(self) -> str | None:
        """Sort by the next sortable column in display order (after the last: unsorted); returns it."""
        keys = [k for k, _, _ in self.columns if k in self.sortable]
        if not keys:
            return None
        nxt = row_order.next_column(keys, self.sort_column)
        self.sort_by(nxt, reverse=False)
        return nxt

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
            old, self.cursor_row = self.cursor_row, row
            self._refresh_rows([old, row])
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

    def key_enter(self, event: events.Key) -> None:
        key = self.cursor_key
        if key is not None:
            event.stop()
            self.post_message(self.RowSelected(self, key))

    def column_at(self, x: int) -> str | None:
        """The key of the column drawn at content offset ``x``."""
        return row_order.column_at(self.columns, x)

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            column = self.column_at(event.x)
            if column in self.sortable:
                same = column == self.sort_column
                self.sort_by(column, reverse=not self.sort_reverse if same else False)
            return
        row = int(self.scroll_y) + event.y - 1
        if row >= len(self._order):
            return
        self._move_cursor(row)
        if event.chain == 2 and self.cursor_key is not None:
            self.post_message(self.RowSelected(self, self.cursor_key))

    # -- drawing -------------------------------------------------------------------------------
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's vertical scrollbar, made as a KeptScrollBar (as Widget.vertical_scrollbar makes its own)."""
        if self._vertical_scrollbar is None:
            bar = self._vertical_scrollbar = KeptScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical
            )
            bar.display = False
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def _update_virtual_size(self) -> None:
        width = sum(w + 2 for _, _, w in self.columns)
        self.virtual_size = Size(width, len(self._order) + 1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._overs = None
        self._pads = {}
        self._blank = None
        self._lines.clear()
        self._segments.clear()

    def _style(self, name: str) -> Style:
        if self._styles is None:
            get = self.get_component_rich_style
            self._styles = row_order.row_styles(self.base_style, get("rowtable--header"), get("rowtable--cursor"),
                                      get("rowtable--odd"))  # fmt: skip
        return self._styles[name]

    def _over(self, name: str) -> int:
        """The number of a row style laid over cells ('none', 'odd', 'cursor' or 'header'): cheap to hash."""
        if self._overs is None:
            self._overs = [self._style(f"over-{n}") if n != "header" else self._style(n) for n in _OVERS]
        return _OVERS.index(name)

    def _cell(self, cell: Text, w: int, over: int) -> CellEntry:
        """One padded cell as segments; a memoised cell (the same object again) is rendered once."""
        key = (id(cell), w, over)
        hit = self._segments.get(key)
        if hit is not None and hit[0] is cell:  # the cache holds the cell, so its id cannot be reused
            return hit
        assert self._overs is not None
        hit = cell_entry(cell, w, self._style("base"), self._overs[over], self.app.console)
        self._segments.put(key, hit)
        return hit

    def _render_cells(self, cells: Sequence[Text], width: int, over: int) -> Strip:
        # The hot loop of a refresh (a row a GPU): lookups are inlined, and a cell that starts in the
        # style the previous one ended in continues its segment (fewer segments to filter and send).
        segments: list[Segment] = []
        extend = segments.extend
        cache_get = self._segments.new.get  # a miss (or an old-generation hit) goes through self._cell
        used = 0
        last_style = None
        for cell, w in zip(cells, self._widths, strict=False):
            hit = cache_get((id(cell), w, over))
            if hit is None or hit[0] is not cell:
                hit = self._cell(cell, w, over)
            _, cell_segs, first_style, first_text, rest, end_style = hit
            if first_style is last_style:
                segments[-1] = Segment(segments[-1].text + first_text, first_style)
                extend(rest)
            else:
                extend(cell_segs)
            last_style = end_style
            used += w + 2
        if used < width:
            pad = self._pads.get((width - used, over))
            if pad is None:
                assert self._overs is not None
                pad = Segment(" " * (width - used), self._style("base") + self._overs[over])
                self._pads[width - used, over] = pad
            segments.append(pad)
            return LeanStrip(segments, width)
        return LeanStrip(segments, used).crop(0, width)

    def render_line(self, y: int) -> Strip:
        return self.render_strips(range(y, y + 1))[0]

    def render_strips(self, ys: range) -> list[Strip]:
        # Rows are drawn to the full width, over the scrollbar's gutter (the scrollbar is drawn on
        # top): the compositor then takes them as they are.
        width = self.outer_size.width
        focused = self.has_focus
        top = int(self.scroll_y)
        strips = [self._line(y, top, width, focused) for y in ys]
        self._fits = (self._fits + 1) % REFIT_EVERY
        if strips and self._fits == 1:  # a generation of each cache holds a few frames of the visible rows
            frame = frame_bytes(strips, self.outer_size.height)
            self._lines.fit(frame)
            self._segments.fit(frame)
        return strips

    def _line(self, y: int, top: int, width: int, focused: bool) -> Strip:
        if y == 0:
            key: tuple[object, ...] = ("header", width, len(self.columns), self.sort_column, self.sort_reverse)
            strip = self._lines.get(key)
            if strip is None:
                header = row_order.header_cells(self.columns, self.sort_column, self.sort_reverse)
                strip = self._render_cells(header, width, self._over("header"))
                self._lines.put(key, strip)
            return strip
        index = top + y - 1
        if index >= len(self._order):
            if self._blank is None or self._blank.cell_length != width:
                self._blank = Strip.blank(width, self._style("base"))
            return self._blank
        row_key = self._order[index]
        cursor = index == self.cursor_row
        odd = index % 2 == 1
        key = (row_key, self._versions[row_key], cursor, odd, width, focused and cursor)
        strip = self._lines.get(key)
        if strip is None:
            over = self._over("cursor" if cursor else "odd" if odd else "none")
            strip = self._render_cells(self.get_row(row_key), width, over)
            self._lines.put(key, strip)
        return strip
