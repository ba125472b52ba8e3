"""The row table's plain parts: sorting rows by a column, the next sort column, which column is under x, the
screen regions of changed rows (one per run of neighbouring rows), the header cells and the row styles."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text
from textual.geometry import Region

Row = tuple[str, object]  # key, the row's data (compared with ==; cells are built from it)
ColumnSpec = tuple[str, str, int]  # key, label, width in cells
_ARROWS = {False: " ▲", True: " ▼"}


def sorted_rows(rows: Sequence[Row], column: str, reverse: bool,
                sort_value: Callable[[str, object], object]) -> Sequence[Row]:  # fmt: skip
    """``rows`` by ``sort_value(column, data)``; rows without a value (None) last, in the order given."""
    keyed = [(sort_value(column, data), key, data) for key, data in rows]
    known = [r for r in keyed if r[0] is not None]
    try:
        known.sort(key=lambda r: r[0], reverse=reverse)  # type: ignore[arg-type,return-value]
    except TypeError:  # values of mixed types: compare them as text
        known.sort(key=lambda r: str(r[0]), reverse=reverse)
    return [(k, d) for _, k, d in known] + [(k, d) for v, k, d in keyed if v is None]


def next_column(keys: Sequence[str], current: str | None) -> str | None:
    """The sortable column after ``current`` in display order; after the last, None (unsorted)."""
    if current not in keys:
        return keys[0] if keys else None
    i = keys.index(current)
    return keys[i + 1] if i + 1 < len(keys) else None


def column_at(columns: Sequence[ColumnSpec], x: int) -> str | None:
    """The key of the column drawn at content offset ``x`` (columns are separated by two cells)."""
    left = 0
    for key, _, w in columns:
        left += w + 2
        if x < left:
            return key
    return None


def row_regions(indexes: list[int], top: int, height: int, width: int) -> list[Region]:
    """The screen regions of the given row indexes that are in view (row 0 of the view is the header)."""
    regions: list[Region] = []
    start = end = -2
    for y in sorted(i - top + 1 for i in indexes if 0 <= i - top < height - 1):
        if y > end:
            if end >= 0:
                regions.append(Region(0, start, width, end - start))
            start = y
        end = y + 1
    if end >= 0:
        regions.append(Region(0, start, width, end - start))
    return regions


def header_cells(columns: Sequence[ColumnSpec], sort_column: str | None, reverse: bool) -> list[Text]:
    """The header's labels, the sort column's with its arrow."""
    return [Text(label + (_ARROWS[reverse] if key == sort_column else ""), no_wrap=True) for key, label, _ in columns]


def row_styles(base: Style, header: Style, cursor: Style, odd: Style) -> dict[str, Style]:
    """The table's styles by name; the ones laid over cells ("over-...") set only background and weight, as the
    cells' own colours carry meaning."""
    styles = {"base": base, "header": header, "cursor": cursor, "odd": odd, "over-none": Style()}
    for name in ("cursor", "odd"):
        styles[f"over-{name}"] = Style(bgcolor=styles[name].bgcolor, bold=styles[name].bold)
    return styles
