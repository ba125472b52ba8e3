"""The one-shot snapshot as rich draws it: the same fitted lines and tables handed to rich's Table, Text and Console
the way `gputui snapshot` printed them before it drew its own tables. The reference that the box-table renderer
(gputui/render/) must match byte for byte."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from gputui.render.box_table import Cell
from gputui.render.fit_table import FitTable
from gputui.render.styled import Styled
from gputui.render.terminal import Terminal


class _Out(io.StringIO):
    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def rich_text(line: Styled) -> Text:
    """``Text(plain, style=...)`` for a one-style line (its style covers padding), else the pieces assembled."""
    if line.base and all(style == line.base for _, style in line.pieces):
        return Text(line.plain, style=line.base)
    return Text.assemble(*line.pieces)


def _cell(cell: Cell) -> Text | str:
    return cell if isinstance(cell, str) else Text(cell.plain, style=cell.base)


def rich_table(t: FitTable) -> Table:
    out = Table(title=t.title, title_justify="left", box=box.SQUARE, header_style="bold", expand=False)
    for c in t.columns:
        out.add_column(
            c.header, justify=c.justify, no_wrap=True, overflow="ellipsis", min_width=c.min_width, max_width=c.max_width
        )
    for r in range(t.row_count):
        out.add_row(*(_cell(c.cells[r]) for c in t.columns))
    return out


def rich_render(parts: list[Styled | FitTable], width: int, term: Terminal) -> str:
    file = _Out("ascii" if term.ascii_only else "utf-8")
    console = Console(
        file=file,
        width=width,
        force_terminal=term.is_terminal,
        color_system="standard" if term.colour else None,
        no_color=term.no_color,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
        _environ={},
    )
    for part in parts:
        if isinstance(part, FitTable):
            console.print(rich_table(part), crop=False)
            for line in part.footer():
                console.print(rich_text(line), crop=False, soft_wrap=True)
        else:
            console.print(rich_text(part), crop=False)
    return file.getvalue()
