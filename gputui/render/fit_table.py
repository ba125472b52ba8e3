"""A table for `gputui snapshot` that fits the terminal the way nvidia-smi's table does: fixed columns keep
their width, free text (commands, UUIDs) is cut, and when the terminal is too narrow whole columns are left out by
priority and named under the table."""

from __future__ import annotations

from collections.abc import Iterable

from gputui.render.box_table import Cell, Table, cell_width
from gputui.render.styled import Styled

_FREE_TEXT = {"Command", "Process name", "MIG UUID"}
#: how much each column matters when the terminal is too narrow for all (the lowest goes first); a column not
#: listed is never left out. Kept at any width: GPU, and in their tables Name, PID, Profile, Client PID.
_PRIORITY = {
    # GPUs
    "Persist-M": 10, "Bus-Id": 20, "Fan": 30, "Perf": 35, "Compute M.": 40, "MIG M.": 60, "Pwr:Usage/Cap": 65,
    "Temp": 70, "GPU-Util": 80, "Memory-Usage": 85,
    # MIG devices (a UUID left out goes on its own line under the table)
    "Activity SM/DRAM": 3, "MIG UUID": 5, "MIG Dev": 40, "Placement": 50, "SM": 60, "Memory-Usage (GI, shared)": 70,
    "CI ID": 85, "GI ID": 90,
    # MPS
    "Pipe directory": 20, "Server PID": 40, "Command": 60, "User": 65, "Memory": 70, "Threads": 80, "Daemon": 90,
    # Processes
    "Type": 30, "GI": 50, "CI": 50, "GPU Memory": 85, "Process name": 88,
}  # fmt: skip
#: the narrowest a free-text column is made before a column is left out for it
_FREE_MIN = 16


class FitTable(Table):
    """A table whose fixed columns keep their full width: only free text (commands) is cut short, and when the
    terminal is too narrow, whole columns are left out by priority (named under the table) rather than cut."""

    def __init__(self, title: str = "") -> None:
        super().__init__(title)
        self.dropped: list[str] = []  # the columns left out by fit(), in the order they went
        self.notes: list[Styled] = []  # lines printed under the table when the MIG UUID column is left out
        self.full: list[Styled] = []  # whole free-text values, printed under the table when piped output cut one
        self.cut = False  # fit() cut a free-text value of piped output
        self.remarks: list[Styled] = []  # lines always printed under the table (why a column is N/A)
        self.legends: dict[str, Styled] = {}  # a line under the table for a column, while it is shown

    def add_row(self, *cells: Cell) -> None:
        for col, cell in zip(self.columns, cells, strict=False):
            if col.header not in _FREE_TEXT:  # free text is cut with an ellipsis; the others keep their width
                width = cell.cell_len if isinstance(cell, Styled) else len(cell)
                col.min_width = max(col.min_width or 0, width)
        super().add_row(*cells)

    def _widths(self) -> tuple[int, list]:  # type: ignore[type-arg]
        free = [c for c in self.columns if c.header in _FREE_TEXT]
        fixed = sum((c.min_width or 0) + 3 for c in self.columns if c not in free) + 1
        return fixed, free

    def fit(self, width: int, *, wide: bool = False, whole: bool = False) -> int:
        """Make the table fit ``width``: leave out the least important columns (unless ``wide``), then share what
        is left among the free-text ones; returns the width to use. ``whole`` (a pipe): when free text is cut,
        ``footer`` gives the whole values, one per line, so that nothing people copy is lost.

        A table whose kept columns alone are wider than ``width`` is printed wider (the terminal wraps).
        """
        if not wide and self._widths()[0] > width:
            self._shorten_names()
        while not wide:
            fixed, free = self._widths()
            if fixed + len(free) * (_FREE_MIN + 3) <= width:
                break
            cands = [c for c in self.columns if str(c.header) in _PRIORITY]
            if not cands:
                break
            worst = min(cands, key=lambda c: _PRIORITY[str(c.header)])
            self.columns.remove(worst)
            self.dropped.append(str(worst.header))
        fixed, free = self._widths()
        share = max(10, (width - fixed) // len(free) - 3) if free else 0
        self.cut = False
        for c in free:
            c.min_width = c.max_width = share
            if whole and any(cell_width(x) > share for x in c.cells):
                self.cut = True  # piped: the full values follow the table, one per line
        return max(width, fixed + sum(share + 3 for _ in free))

    def _shorten_names(self) -> None:
        """GPU names without the vendor's prefix that every one of them has (``H100 80GB HBM3``)."""
        for c in self.columns:
            if c.header != "Name":
                continue
            cells = c.cells
            for i, cell in enumerate(cells):
                plain = cell.plain if isinstance(cell, Styled) else cell
                if plain.startswith("NVIDIA "):
                    cells[i] = Styled(plain[len("NVIDIA ") :], style=cell.base if isinstance(cell, Styled) else "")
            c.min_width = max([len("Name")] + [x.cell_len if isinstance(x, Styled) else len(x) for x in cells])

    def footer(self) -> list[Styled]:
        """The lines under the table: values of left-out columns that people copy, and what was left out."""
        out = list(self.remarks)
        out += [line for column, line in self.legends.items() if column not in self.dropped]
        out += self.notes if "MIG UUID" in self.dropped else []
        out += self.full if self.cut else []
        if self.dropped:
            out.append(Styled(f"(not shown at this width: {', '.join(self.dropped)}; --wide)", style="dim"))
        return out


def smi_table(title: str, *columns: str, right: Iterable[str] = ()) -> FitTable:
    """An empty table in nvidia-smi's look, with ``columns`` (those in ``right`` right-aligned)."""
    t = FitTable(title)
    right_set = set(right)
    for c in columns:
        if c in _FREE_TEXT:
            t.add_column(c)
        else:
            t.add_column(c, justify="right" if c in right_set else "left", min_width=len(c))
    return t
