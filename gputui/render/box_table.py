"""A table drawn in box characters, line by line, the way rich draws ``Table(box=box.SQUARE, header_style="bold")``
with a left-justified title (the same characters and the same escape sequences), for the one-shot output, which
should not pay for rich's import.

Each row is one line: a cell never wraps; a cell wider than its column is cut with an ellipsis (the free-text
columns, to which :class:`~gputui.render.fit_table.FitTable` gives a width). A column is as wide as its widest
cell and header, at least ``min_width`` and at most ``max_width`` (cells, not characters), plus one space of
padding each side.
"""

from __future__ import annotations

from typing import Literal

from gputui.render.cells import cell_len, set_cell_size
from gputui.render.styled import Styled

Cell = str | Styled
#: (top, header row, the rule under the header, body row, bottom) borders: left, fill, between, right
_SQUARE = ("┌─┬┐", "│ ││", "├─┼┤", "│ ││", "└─┴┘")
_ASCII = ("+--+", "| ||", "|-+|", "| ||", "+--+")
HEADER_STYLE = "bold"
TITLE_STYLE = "italic"


class Column:
    """A column: its header, how it is justified, its width bounds (cells) and its cells, one per row."""

    __slots__ = ("cells", "header", "justify", "max_width", "min_width")

    def __init__(
        self,
        header: str,
        justify: Literal["left", "right"] = "left",
        min_width: int | None = None,
        max_width: int | None = None,
    ) -> None:
        self.header, self.justify, self.min_width, self.max_width = header, justify, min_width, max_width
        self.cells: list[Cell] = []

    def width(self) -> int:
        """The width of its text (without the padding)."""
        widest = max([cell_len(self.header), *(cell_width(c) for c in self.cells)])
        if self.min_width is not None:
            widest = max(widest, self.min_width)
        if self.max_width is not None:
            widest = min(widest, self.max_width)
        return widest


class Table:
    """Columns of cells (plain strings or single-style :class:`Styled`) under a title."""

    def __init__(self, title: str = "") -> None:
        self.title = title
        self.columns: list[Column] = []
        self.row_count = 0

    def add_column(self, header: str, **kwargs: object) -> Column:
        col = Column(header, **kwargs)  # type: ignore[arg-type]
        col.cells = [""] * self.row_count
        self.columns.append(col)
        return col

    def add_row(self, *cells: Cell) -> None:
        for i, col in enumerate(self.columns):
            col.cells.append(cells[i] if i < len(cells) else "")
        self.row_count += 1

    def lines(self, *, ascii_only: bool = False) -> list[Styled]:
        """The title, borders, header and rows, one :class:`Styled` per line."""
        if not self.columns:
            return [Styled()]
        box = _ASCII if ascii_only else _SQUARE
        widths = [c.width() for c in self.columns]
        table_width = sum(widths) + 3 * len(widths) + 1
        out = []
        if self.title:
            title = set_cell_size(self.title, max(table_width, cell_len(self.title)))
            out.append(Styled(title, TITLE_STYLE))
        out.append(_rule(box[0], widths))
        out.append(self._row(box[1], widths, [c.header for c in self.columns], HEADER_STYLE))
        out.append(_rule(box[2], widths))
        for r in range(self.row_count):
            out.append(self._row(box[3], widths, [c.cells[r] for c in self.columns], ""))
        out.append(_rule(box[4], widths))
        return out

    def _row(self, edges: str, widths: list[int], cells: list[Cell], cell_style: str) -> Styled:
        line = Styled()
        for i, (col, width, cell) in enumerate(zip(self.columns, widths, cells, strict=True)):
            line.append(edges[0] if i == 0 else edges[2])
            text, style = (cell, "") if isinstance(cell, str) else (cell.plain, cell.base)
            text = _justify(text, width, col.justify)
            # rich then measures the justified text again and pads (or cuts) it to the width: the two counts differ
            # where a zero-width joiner ends the text, whose measure swallows the next character (a space)
            measured = cell_len(text)
            if measured > width:
                text = set_cell_size(text, width)
            line.append(" ", cell_style)
            line.append(text, style if not cell_style else _both(cell_style, style))
            line.append(" " * (width - measured), cell_style)
            line.append(" ", cell_style)
        line.append(edges[3])
        return line


def cell_width(cell: Cell) -> int:
    """How many terminal cells ``cell`` takes."""
    return cell_len(cell if isinstance(cell, str) else cell.plain)


def _both(outer: str, inner: str) -> str:
    return f"{outer} {inner}".strip()


def _justify(text: str, width: int, how: str) -> str:
    """``text`` in exactly ``width`` cells: cut with an ellipsis when wider, padded on the right (left-justified) or
    on the left after its trailing spaces are dropped (right-justified)."""
    if how == "right":
        text = text.rstrip()
    length = cell_len(text)
    if length > width:
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - length)
    return pad + text if how == "right" else text + pad


def _rule(edges: str, widths: list[int]) -> Styled:
    left, fill, between, right = edges[0], edges[1], edges[2], edges[3]
    return Styled(left + between.join(fill * (w + 2) for w in widths) + right)
