"""The idle view's table: one row per held unit the radar flags idle (then those it cannot judge), sortable."""

from __future__ import annotations

from typing import cast

from rich.text import Text
from textual import events

from gputui.core.idle import IdleRow, RadarResult
from gputui.dashboard.radar.rows import row_texts
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.row_order import ColumnSpec
from gputui.ui.render.row_table import Row, RowTable

WIDE_FROM = 100  # columns; below this the 'Util seen' column is left out
_PADDING = 2


def idle_columns(width: int, node_w: int) -> list[ColumnSpec]:
    """The columns for a table ``width`` cells wide; the job column takes what is left."""
    cols: list[ColumnSpec] = [
        ("node", "Node", node_w),
        ("unit", "GPU", 8),
        ("user", "User", 10 if width >= WIDE_FROM else 8),
        ("since", "Held since", 10),
        ("idle", "Idle for", 8),
        ("memory", "Memory", 9),
    ]
    if width >= WIDE_FROM:
        cols.append(("util", "Util seen", 14))
    used = sum(w + _PADDING for _, _, w in cols) + 2
    cols.insert(2, ("job", "Job", max(8, width - used - _PADDING)))
    return cols


def row_key(row: IdleRow) -> str:
    k = row.key
    return f"{k.node}/{k.gpu}/{k.kind}/{k.ref}"


class IdleTable(RowTable):
    """The radar's rows; ``show`` applies a result, keeping the cursor on its unit."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.sortable = frozenset(("node", "unit", "job", "user", "since", "idle", "memory", "util"))
        self._sig: tuple[int, int] | None = None
        self._now = 0.0
        self._result: RadarResult | None = None

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        row = cast(IdleRow, data)
        texts = row_texts(row, self._now)
        p = self.palette
        idle = row.state == "idle"
        out = []
        for col, _, _ in self.columns:
            style = p.text if idle else p.muted
            if col == "idle" and idle:
                style = p.idle
            elif col == "job" and idle and row.holder.job_id is not None:
                style = p.accent
            right = col in ("memory",)
            out.append(
                Text(texts[col], style=style, no_wrap=True, overflow="ellipsis", justify="right" if right else "left")
            )
        return out

    def sort_value(self, column: str, data: object) -> object:
        row = cast(IdleRow, data)
        h = row.holder
        values: dict[str, object] = {
            "node": (row.key.node, row.key.gpu, row.key.kind, row.key.ref),
            "unit": (row.key.gpu, row.key.kind, row.key.ref, row.key.node),
            "job": h.job_id,
            "user": h.user,
            "since": row.held_since,
            "idle": row.idle_for_s,
            "memory": row.memory_mib,
            "util": row.util_max,
        }
        return values.get(column)

    def show(self, result: RadarResult | None) -> None:
        self._result = result
        rows = (
            []
            if result is None
            else [*sorted(result.idle, key=lambda r: r.key), *sorted(result.unknown, key=lambda r: r.key)]
        )
        width = self.size.width or self.app.size.width
        node_w = min(max([len(r.key.node) for r in rows] + [4]), 16)
        if (width, node_w) != self._sig:
            self._sig = (width, node_w)
            self.set_columns(idle_columns(width, node_w))
        self._now = result.timestamp if result is not None else 0.0
        data: list[Row] = [(row_key(r), r) for r in rows]
        self.sync(data)

    def unit_at_cursor(self) -> IdleRow | None:
        key = self.cursor_key
        if key is None or self._result is None:
            return None
        return next((r for r in (*self._result.idle, *self._result.unknown) if row_key(r) == key), None)

    def on_resize(self, event: events.Resize) -> None:
        self._sig = None
        self.show(self._result)
