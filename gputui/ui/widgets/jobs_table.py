"""The jobs table: one row per job with its state, why it waits, where it runs and for how long.

Rows are plain frozen data built from job records; a row changes (and is redrawn) only when something it
shows changed, so a running job's elapsed time redraws that one line each second.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events

from gputui.core.plain_text import sanitise
from gputui.jobs.describe import clock_text
from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, JobRecord
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.row_table import ColumnSpec, RowTable

#: Which states each choice of the state filter shows, in the order the filter key cycles through them.
STATE_FILTERS: dict[str, frozenset[str]] = {
    "all": frozenset({PENDING, RUNNING, COMPLETED, FAILED, CANCELLED}),
    "active": frozenset({PENDING, RUNNING}),
    "pending": frozenset({PENDING}),
    "running": frozenset({RUNNING}),
    "finished": frozenset({COMPLETED, FAILED, CANCELLED}),
}
_STATE_ORDER = {RUNNING: 0, PENDING: 1, FAILED: 2, CANCELLED: 3, COMPLETED: 4}


@dataclass(frozen=True, slots=True)
class JobRow:
    """What the table shows of one job; times are on the queue's clock, ``elapsed`` in whole seconds."""

    id: int
    name: str
    user: str
    state: str
    reason: str  # why it waits (pending), or how it ended (finished)
    granularity: str
    allocation: str
    submit_time: float
    start_time: float | None
    elapsed: int
    end_time: float | None

    @property
    def key(self) -> str:
        return str(self.id)

    def matches(self, needle: str) -> bool:
        """Whether a lower-case filter text occurs in any column."""
        hay = f"{self.id} {self.name} {self.user} {self.state} {self.reason} {self.granularity} {self.allocation}"
        return needle in hay.lower()


def job_row(rec: JobRecord, now: float) -> JobRow:
    if rec.pending:
        reason = rec.reason if rec.reason != "None" else ""
    elif rec.ended:
        code = f" (exit {rec.exit_code})" if rec.exit_code not in (None, 0) else ""
        reason = (rec.end_reason or "") + code
    else:
        reason = f"stopping: {rec.stop_requested}" if rec.stop_requested else ""
    return JobRow(
        id=rec.id, name=sanitise(rec.display_name), user=sanitise(rec.user), state=rec.state, reason=sanitise(reason),
        granularity=rec.granularity, allocation=sanitise(rec.allocation_text), submit_time=rec.submit_time,
        start_time=rec.start_time, elapsed=int(rec.elapsed(now)), end_time=rec.end_time,
    )  # fmt: skip


RowCache = dict[int, tuple[JobRecord, JobRow]]


def _cached_row(rec: JobRecord, now: float, cache: RowCache) -> JobRow:
    """``job_row``, kept for a record that has not changed: only a running job's row moves with the clock."""
    hit = cache.get(rec.id)
    if hit is not None and hit[0] is rec and not rec.running:
        return hit[1]
    row = job_row(rec, now)
    cache[rec.id] = (rec, row)
    return row


def job_rows(
    records: Iterable[JobRecord], now: float, state_filter: str = "all", text: str = "", cache: RowCache | None = None
) -> list[JobRow]:
    """Rows for the table, filtered: pending and running jobs by id first, then finished ones newest first.
    With ``cache`` (kept by the caller between calls) an unchanged record's row is not made again."""
    states = STATE_FILTERS[state_filter]
    needle = text.strip().lower()
    if cache is None:
        rows = [job_row(r, now) for r in records if r.state in states]
    else:
        rows = [_cached_row(r, now, cache) for r in records if r.state in states]
    if needle:
        rows = [r for r in rows if r.matches(needle)]
    active = sorted((r for r in rows if r.state in (PENDING, RUNNING)), key=lambda r: r.id)
    ended = sorted((r for r in rows if r.state not in (PENDING, RUNNING)), key=lambda r: (r.end_time or 0, r.id))
    return active + ended[::-1]


def time_text(t: float | None, now: float) -> str:
    """``HH:MM:SS`` (UTC, as the event log) on the day of ``now``; with the date on another day."""
    if t is None:
        return ""
    stamp = time.gmtime(t)
    if time.gmtime(now)[:3] == stamp[:3]:
        return time.strftime("%H:%M:%S", stamp)
    return time.strftime("%m-%d %H:%M", stamp)


def state_style(state: str, p: Palette) -> object:
    return {RUNNING: p.free, PENDING: p.warn, FAILED: p.lost, CANCELLED: p.muted, COMPLETED: p.muted}.get(state, p.text)


_FIXED_LEFT: list[ColumnSpec] = [("id", "JobID", 6), ("name", "Name", 16), ("user", "User", 10), ("state", "State", 9)]
_FIXED_RIGHT: list[ColumnSpec] = [("gran", "Kind", 6)]
_TIMES: list[ColumnSpec] = [("submit", "Submitted", 9), ("start", "Started", 9), ("elapsed", "Elapsed", 10)]


def columns_for(width: int) -> list[ColumnSpec]:
    """Fixed columns, with the reason and the allocation sharing what is left (at least 12 cells each)."""
    fixed = sum(w + 2 for _, _, w in (*_FIXED_LEFT, *_FIXED_RIGHT, *_TIMES)) + 4 + 2  # + the two shared columns' gaps
    left = max(24, width - fixed - 1)
    reason = max(12, left * 2 // 5)
    alloc = max(12, left - reason)
    return [*_FIXED_LEFT, ("reason", "Reason", reason), *_FIXED_RIGHT, ("alloc", "Allocation", alloc), *_TIMES]


def row_cells(r: JobRow, now: float, p: Palette = PLAIN) -> list[Text]:
    def cell(text: str, style: object = None, justify: str = "left") -> Text:
        return Text(text, style=style or p.text, no_wrap=True, overflow="ellipsis", justify=justify)  # type: ignore[arg-type]

    return [
        cell(str(r.id), justify="right"),
        cell(r.name),
        cell(r.user),
        cell(r.state, state_style(r.state, p)),
        cell(r.reason, p.lost if r.state == FAILED else p.muted),
        cell(r.granularity, p.mig if r.granularity == "MIG" else p.mps if r.granularity == "MPS" else p.text),
        cell(r.allocation),
        cell(time_text(r.submit_time, now), p.muted),
        cell(time_text(r.start_time, now), p.muted),
        cell(clock_text(r.elapsed) if r.start_time is not None else "", justify="right"),
    ]


def sort_value(column: str, r: JobRow) -> object:
    return {
        "id": r.id,
        "name": r.name.lower(),
        "user": r.user,
        "state": (_STATE_ORDER.get(r.state, 9), r.id),
        "reason": r.reason or None,
        "gran": r.granularity,
        "alloc": r.allocation or None,
        "submit": r.submit_time,
        "start": r.start_time,
        "elapsed": r.elapsed if r.start_time is not None else None,
    }.get(column)


class JobsTable(RowTable):
    """Jobs keyed by id: a refresh keeps the cursor on the job it was on; a header click sorts."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.now = 0.0
        self._width = -1
        self._rows: list[JobRow] = []
        self.sortable = frozenset(k for k, _, _ in columns_for(120))

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        assert isinstance(data, JobRow)
        return row_cells(data, self.now, self.palette)

    def sort_value(self, column: str, data: object) -> object:
        assert isinstance(data, JobRow)
        return sort_value(column, data)

    def show(self, rows: Sequence[JobRow], now: float, *, force: bool = False) -> None:
        self._rows = list(rows)
        day_changed = time.gmtime(now)[:3] != time.gmtime(self.now)[:3]
        self.now = now
        width = self.size.width or 120
        if width != self._width or force:
            self._width = width
            self.set_columns(columns_for(width))
        elif day_changed:
            self.invalidate()
        self.sync([(r.key, r) for r in self._rows])

    def on_resize(self, event: events.Resize) -> None:
        self.show(self._rows, self.now, force=True)
