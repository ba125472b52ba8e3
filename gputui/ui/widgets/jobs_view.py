"""The jobs view: a summary line with a filter, the jobs table, and the detail of the highlighted job.

The app pushes job records in; the view fetches the detail of the highlighted job itself (its own worker,
the service called in a thread), and the app's actions (cancel, requeue, priority) read ``selected_job``,
so that every key that changes something goes through the one action registry (and --readonly).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input

from gputui.core.errors import GputuiError
from gputui.dashboard.jobs import JobsController
from gputui.jobs.records import PENDING, RUNNING, JobRecord
from gputui.jobs.views import JobDetail
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.widgets.job_detail import render_job_detail
from gputui.ui.widgets.jobs_table import STATE_FILTERS, JobsTable, RowCache, job_rows

#: how often (seconds) the detail of an active job is fetched again while nothing else about it changes
DETAIL_REFRESH_S = 5.0
#: a jump of the queue's clock (seconds, either way) after which the detail is fetched again at once: a replay
#: sought, whose running job's "running for N s" would otherwise lag until the next refresh
DETAIL_JUMP_S = 60.0
_COLUMN_NAMES = {"id": "id", "name": "name", "user": "user", "state": "state", "reason": "reason", "gran": "kind",
                 "alloc": "allocation", "submit": "submitted", "start": "started", "elapsed": "elapsed",
                 "where": "nodelist(reason)"}  # fmt: skip


class JobsView(Vertical):
    """Pending, running and finished jobs of the queue the dashboard shows."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/"),  # only with a filter line of its own
        Binding("f", "cycle_states", "Show"),
        Binding("o", "cycle_sort", "Sort"),
        Binding("O", "reverse_sort", "Reverse", show=False),
    ]

    def __init__(self, jobs: JobsController, *, own_filter: bool = True, id: str | None = None) -> None:
        """``own_filter``: a filter line of its own; without it the app sets ``filter_text`` (its shared filter)."""
        super().__init__(id=id)
        self.jobs = jobs
        self.own_filter = own_filter
        self.palette: Palette = PLAIN
        self.filter_text = ""
        self.state_filter = "all"
        self.records: dict[int, JobRecord] = {}
        self.now = 0.0
        self.detail: JobDetail | None = None
        self.note: str | None = None  # e.g. why jobs are read-only
        self._wanted: int | None = None
        self._wanted_at = 0.0  # monotonic time the detail was last asked for
        self._wanted_now = 0.0  # the queue's time then
        self._loaded = False
        self._shown_records: Sequence[JobRecord] | None = None
        self._row_cache: RowCache = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="jobs-bar"):
            yield TextPanel("", id="jobs-summary")
            if self.own_filter:
                yield Input(placeholder="filter: id, name, user, state, node…  (/)", id="jobs-filter", compact=True)
        with Horizontal(id="jobs-body"):
            yield JobsTable(id="jobs-table")
            with VerticalScroll(id="jobs-detail"):
                yield TextPanel("", id="jobs-detail-text")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "focus_filter" or self.own_filter  # without its own line, the app's filter key takes it

    def on_mount(self) -> None:
        self._show_summary()
        self._show_detail_text()

    @property
    def table(self) -> JobsTable:
        return self.query_one(JobsTable)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.table.set_palette(palette)
        self._show_summary()
        self._show_detail_text()

    # -- data pushed in ------------------------------------------------------------------------
    def show_jobs(self, records: Sequence[JobRecord], now: float) -> None:
        """Show these jobs (the app's list: active ones and the recent finished ones) at queue time ``now``."""
        same = records is self._shown_records and now == self.now and self._loaded
        self._shown_records = records
        if not same:  # the same list at the same moment (a poll shows it twice): nothing to redraw
            self.records = {r.id: r for r in records}
            self.now = now
            self._loaded = True
            self._refresh_rows()
        if self.detail is not None and self.detail.record.id in self.records:
            fresh = self.records[self.detail.record.id]
            if fresh != self.detail.record:
                self.detail = replace(self.detail, record=fresh)
                self._want(fresh.id, force=True)  # its explanation may have changed too
            elif not fresh.ended and self._detail_stale():
                self._want(fresh.id, force=True)  # why it waits (or its output) moves on with the cluster
        elif self._wanted in self.records and self._detail_stale():
            self._want(self._wanted, force=True)  # the last fetch failed (e.g. a poll in between): ask again
        self._show_detail_text()

    def _detail_stale(self) -> bool:
        return (
            time.monotonic() - self._wanted_at >= DETAIL_REFRESH_S or abs(self.now - self._wanted_now) >= DETAIL_JUMP_S
        )

    def show_detail(self, detail: JobDetail | None) -> None:
        """The detail fetched for the job last wanted."""
        if detail is not None and detail.record.id != self._wanted:
            return  # the cursor moved on meanwhile
        self.detail = detail
        self._show_detail_text()

    @property
    def selected_job(self) -> JobRecord | None:
        key = self.table.cursor_key
        return self.records.get(int(key)) if key is not None else None

    def select_job(self, job_id: int) -> bool:
        """Move the cursor onto a job (e.g. one just submitted); False when the filter hides it."""
        return self.table.select_key(str(job_id))

    # -- drawing -------------------------------------------------------------------------------
    def set_filter(self, text: str) -> None:
        """Show only the jobs with ``text`` in a column (the app's shared filter)."""
        if text != self.filter_text:
            self.filter_text = text
            self._refresh_rows()

    def _refresh_rows(self) -> None:
        if len(self._row_cache) > 2 * len(self.records) + 1000:
            self._row_cache = {}  # forget the rows of jobs no longer listed
        rows = job_rows(self.records.values(), self.now, self.state_filter, self.filter_text, self._row_cache)
        self.table.show(rows, self.now)
        self._show_summary()
        self._want(self._selected_id())

    def _selected_id(self) -> int | None:
        key = self.table.cursor_key
        return int(key) if key is not None else None

    def _show_summary(self) -> None:
        p = self.palette
        counts = {PENDING: 0, RUNNING: 0}
        for r in self.records.values():
            if r.state in counts:
                counts[r.state] += 1
        finished = len(self.records) - counts[PENDING] - counts[RUNNING]
        t = Text.assemble(
            ("Jobs ", "bold"),
            (f"{counts[RUNNING]} running", p.free), " · ", (f"{counts[PENDING]} pending", p.warn), " · ",
            (f"{finished} finished", p.muted),
        )  # fmt: skip
        t.append(f"   showing {self.state_filter} (f)", style=p.muted)
        table = self.table
        if table.sort_column is not None:
            arrow = "▼" if table.sort_reverse else "▲"
            t.append(
                f" · sorted by {_COLUMN_NAMES.get(table.sort_column, table.sort_column)} {arrow} (o)", style=p.muted
            )
        else:
            t.append(" · sort (o)", style=p.muted)
        if table.row_count != len(self.records):
            t.append(f" · {table.row_count} of {len(self.records)} shown", style=p.accent)
        if self.note:
            t.append(f"\n{self.note}", style=p.warn)
        self.query_one("#jobs-summary", TextPanel).show_text(t)

    def _show_detail_text(self) -> None:
        detail = self.detail if self.detail is not None and self.detail.record.id == self._wanted else None
        if detail is None and self._wanted is not None and self._wanted in self.records:
            # until the app's answer comes, show the record itself
            rec = self.records[self._wanted]
            detail = JobDetail(rec, rec.reason, "")
        if detail is None and not self._loaded:
            text = Text("Loading jobs…", style=self.palette.muted)
        elif detail is None and not self.records:
            text = Text("No jobs in this queue yet. Press s to submit one.", style=self.palette.muted)
        else:
            panel = self.query_one("#jobs-detail-text", TextPanel)
            text = render_job_detail(detail, self.now, self.palette, panel.size.width)
        self.query_one("#jobs-detail-text", TextPanel).show_text(text)

    def _want(self, job_id: int | None, *, force: bool = False) -> None:
        if job_id == self._wanted and not force:
            return
        self._wanted = job_id
        self._wanted_at = time.monotonic()
        self._wanted_now = self.now
        self._fetch_detail(job_id)

    @work(group="jobs-detail", exclusive=True)
    async def _fetch_detail(self, job_id: int | None) -> None:
        """The detail pane should show job ``job_id`` (None: no job): fetched off the event loop."""
        service = self.jobs.service
        if service is None or job_id is None:
            self.show_detail(None)
            return
        try:
            detail = await asyncio.to_thread(service.get, job_id)
        except GputuiError:
            detail = None
        self.show_detail(detail)

    # -- events --------------------------------------------------------------------------------
    def on_row_table_row_highlighted(self, event: JobsTable.RowHighlighted) -> None:
        if event.table is self.table:
            event.stop()
            self._want(int(event.key) if event.key is not None else None)
            self._show_detail_text()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-filter":
            event.stop()
            self.set_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "jobs-filter":
            event.stop()
            self.table.focus()

    def key_escape(self) -> None:
        if self.own_filter and (filt := self.query_one("#jobs-filter", Input)).has_focus:
            filt.value = ""
            self.table.focus()

    # -- view actions (they change only what is shown) -----------------------------------------
    def action_focus_filter(self) -> None:
        if self.own_filter:
            self.query_one("#jobs-filter", Input).focus()

    def action_cycle_states(self) -> None:
        names = list(STATE_FILTERS)
        self.state_filter = names[(names.index(self.state_filter) + 1) % len(names)]
        self._refresh_rows()

    def action_cycle_sort(self) -> None:
        self.table.cycle_sort()
        self._show_summary()

    def action_reverse_sort(self) -> None:
        if self.table.sort_column is not None:
            self.table.sort_by(self.table.sort_column, reverse=not self.table.sort_reverse)
            self._show_summary()

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_detail_text)  # long values wrap at the pane's new width

    def on_click(self) -> None:
        self.call_after_refresh(self._show_summary)  # a header click may have changed the sort
