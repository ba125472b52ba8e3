"""Which columns the jobs table shows, and how wide, for the width it has and the jobs it lists.

Wide (100 cells and more): every column, Name and User as narrow as what they hold, Reason and Allocation
sharing what is left; Submitted (also in the detail pane) and then Kind give way first when room is short.
Narrow: squeue's columns first, in its order (JOBID NAME USER ST TIME NODELIST(REASON)), then Kind and Started
as far as they fit. No column is cut to a width below its header.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rich.cells import cell_len

from gputui.jobs.describe import clock_text
from gputui.jobs.records import PENDING
from gputui.ui.render.row_table import ColumnSpec

#: At and above this many cells the table shows every column (wide); below, squeue's columns first.
WIDE = 100
GAP = 2  # cells between two columns (the row table's)
EDGE = 2  # cells kept free at the right edge (a vertical scrollbar)
TIME_W = 8  # HH:MM:SS


class ColumnRow(Protocol):
    """What the layout reads of a row (the jobs table's JobRow has these)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def allocation(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def elapsed(self) -> int: ...
    @property
    def start_time(self) -> float | None: ...


def where_text(r: ColumnRow) -> str:
    """squeue's NODELIST(REASON): where a job runs (or ran), or why a pending one waits, in parentheses."""
    if r.state == PENDING:
        return f"({r.reason})" if r.reason else ""
    return r.allocation or (f"({r.reason})" if r.reason else "")


def elapsed_text(r: ColumnRow) -> str:
    return clock_text(r.elapsed) if r.start_time is not None else ""


_CONTENT: dict[str, Callable[[ColumnRow], str]] = {
    "id": lambda r: str(r.id),
    "name": lambda r: r.name,
    "user": lambda r: r.user,
    "state": lambda r: r.state,
    "reason": lambda r: r.reason,
    "gran": lambda r: "",  # a short word (GPU, MIG, MPS, node, CPU): the header is wider
    "alloc": lambda r: r.allocation,
    "where": where_text,
    "elapsed": elapsed_text,
    "submit": lambda r: "",
    "start": lambda r: "",
}
_LABELS = {
    "id": "JobID", "name": "Name", "user": "User", "state": "State", "reason": "Reason", "gran": "Kind",
    "alloc": "Allocation", "where": "NodeList(Reason)", "submit": "Submitted", "start": "Started",
    "elapsed": "Elapsed",
}  # fmt: skip
#: the most cells a column takes however long its values (longer ones end in an ellipsis)
_CAP = {"name": 20, "user": 12, "reason": 36, "alloc": 32, "where": 36}
#: the fewest cells a column shrinks to when room is short (at least its header)
_MIN = {"name": 10, "user": 8}
_FIXED = {"state": 9, "gran": 4, "submit": TIME_W, "start": TIME_W}
WIDE_ORDER = ("id", "name", "user", "state", "reason", "gran", "alloc", "submit", "start", "elapsed")
NARROW_ORDER = ("id", "name", "user", "state", "elapsed", "where", "gran", "start")
_FLEX = {"reason", "alloc", "where"}  # they share the room left over


def _natural(key: str, rows: Sequence[ColumnRow], label: str) -> int:
    """The cells a column wants: its header (with room for the sort arrow) or its longest value, capped."""
    head = cell_len(label) + 1
    if key in _FIXED:
        return max(head, _FIXED[key])
    longest = max((cell_len(_CONTENT[key](r)) for r in rows), default=0)
    return max(head, min(longest, _CAP.get(key, longest)))


def _used(widths: dict[str, int]) -> int:
    return sum(w + GAP for w in widths.values()) + EDGE


def columns_for(width: int, rows: Sequence[ColumnRow] = ()) -> list[ColumnSpec]:
    """The columns for a table ``width`` cells wide showing ``rows``."""
    wide = width >= WIDE
    order = WIDE_ORDER if wide else NARROW_ORDER
    labels = {**_LABELS, "elapsed": "Elapsed" if wide else "Time"}
    widths = {k: _natural(k, rows, labels[k]) for k in order}
    floor = {k: cell_len(labels[k]) + 1 for k in order}
    # Too wide: first the optional columns go (the last of the order first), then the long ones shrink.
    optional = ["submit", "gran"] if wide else ["start", "gran"]
    for key in optional:
        if _used(widths) > width:
            del widths[key]
    for key in ("name", "user"):
        over = _used(widths) - width
        if over > 0:
            widths[key] = max(_MIN.get(key, floor[key]), widths[key] - over)
    flex = [k for k in widths if k in _FLEX]
    while (over := _used(widths) - width) > 0:  # shrink the widest shared one, never below its header
        widest = max((k for k in flex if widths[k] > floor[k]), key=lambda k: widths[k] - floor[k], default=None)
        if widest is None:
            break
        widths[widest] -= min(over, widths[widest] - floor[widest], max(1, over // len(flex)))
    left = width - _used(widths)
    if left > 0 and flex:  # the room left over: to the shared columns, so that the table fills its width
        for i, key in enumerate(flex):
            widths[key] += left // len(flex) + (1 if i < left % len(flex) else 0)
    return [(k, labels[k], widths[k]) for k in order if k in widths]


__all__ = ["NARROW_ORDER", "WIDE", "WIDE_ORDER", "columns_for", "elapsed_text", "where_text"]
