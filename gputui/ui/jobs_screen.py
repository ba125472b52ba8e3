"""The jobs view: the queue and the running jobs, from the jobs provider given to ``create_app``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import cast

from rich.text import Text
from textual import events
from textual.widget import Widget

from gputui.ui import cells
from gputui.ui.jobs import JobSummary, state_rank
from gputui.ui.jobs_view import JobsView
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.row_table import ColumnSpec, RowTable
from gputui.ui.text_panel import TextPanel
from gputui.ui.view_screen import ViewScreen

NO_PROVIDER = "No job queue is attached to this dashboard. Jobs come from `gputui submit`."
NO_JOBS = "No jobs in the queue. Jobs come from `gputui submit`."
NO_MATCH = "No job matches the filter."

_FIXED: list[ColumnSpec] = [
    ("id", "Job", 8),
    ("state", "State", 9),
    ("user", "User", 10),
    ("name", "Name", 16),
    ("request", "Asked for", 14),
    ("where", "Runs on", 14),
    ("age", "Waited/ran", 10),
]


def _duration(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def job_matches(job: JobSummary, needle: str) -> bool:
    """The '/' filter on jobs: a substring of the id, state, user, name, request or node."""
    if not needle:
        return True
    words = [job.job_id, job.state, job.user or "", job.name or "", job.request or "", job.node or ""]
    return any(needle.lower() in w.lower() for w in words)


def job_cells(job: JobSummary, now: float, p: Palette) -> list[Text]:
    state_style = {"running": p.free, "failed": p.lost, "cancelled": p.muted, "completed": p.muted}.get(
        job.state, p.accent
    )
    where = (job.node or "") + (f" GPU {','.join(map(str, job.gpus))}" if job.gpus else "")
    since = job.started if job.state == "running" and job.started is not None else job.submitted
    age = "" if since is None else _duration(now - since)
    return [
        Text(job.job_id, style=p.text),
        Text(job.state, style=state_style),
        cells.na(p) if job.user is None else Text(job.user, style=p.text),
        Text(job.name or "", style=p.text, no_wrap=True, overflow="ellipsis"),
        Text(job.request or "", style=p.text, no_wrap=True, overflow="ellipsis"),
        Text(where, style=p.text, no_wrap=True, overflow="ellipsis"),
        Text(age, style=p.muted, justify="right"),
        Text(job.reason or "", style=p.muted, no_wrap=True, overflow="ellipsis"),
    ]


class QueueTable(RowTable):
    """Jobs by id; running first, then waiting, then finished (until a column is chosen to sort by)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.now = 0.0
        self.sortable = frozenset(k for k, _, _ in _FIXED) | {"reason"}
        self._width = -1

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        job, _ = cast(tuple[JobSummary, int], data)
        return job_cells(job, self.now, self.palette)

    def sort_value(self, column: str, data: object) -> object:
        job, _ = cast(tuple[JobSummary, int], data)
        return {
            "id": job.job_id,
            "state": state_rank(job.state),
            "user": job.user,
            "name": job.name,
            "request": job.request,
            "where": job.node,
            "age": job.started or job.submitted,
            "reason": job.reason,
        }.get(column)

    def show(self, jobs: list[JobSummary], now: float) -> None:
        width = self.size.width or 80
        if width != self._width:
            self._width = width
            used = sum(w + 2 for _, _, w in _FIXED) + 4
            self.set_columns([*_FIXED, ("reason", "Reason", max(10, width - used))])
        self.now = now
        ordered = sorted(jobs, key=lambda j: (state_rank(j.state), j.submitted or 0.0, j.job_id))
        # The reference time goes into each row's data so that ages are redrawn as it moves on.
        self.sync([(j.job_id, (j, int(now))) for j in ordered])

    def on_resize(self, event: events.Resize) -> None:
        self._width = -1


class JobsScreen(ViewScreen):
    """The jobs view: the job service's queue (with a detail pane) when one is attached, else the provider's list."""

    VIEW = "jobs"

    def compose_body(self) -> Iterable[Widget]:
        app = self.gputui
        if app.jobs_service is not None or app.jobs_opener is not None or app.jobs_note is not None:
            yield JobsView(own_filter=False, id="jobs-view")
            return
        yield TextPanel("", id="jobs-note")
        yield QueueTable(id="queue-table")

    def main_table(self) -> RowTable:
        views = self.query(JobsView)
        return views.first().table if views else self.query_one(QueueTable)

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        for view in self.query(JobsView):
            view.set_palette(palette)
        for table in self.query(QueueTable):
            table.set_palette(palette)

    def refresh_view(self) -> None:
        app = self.gputui
        views = self.query(JobsView)
        if views:
            views.first().set_filter(app.filter_text)
            app.show_jobs()
            return
        p = getattr(self, "_palette", PLAIN)
        jobs = [j for j in app.jobs if job_matches(j, app.filter_text)]
        now = app.snapshot.timestamp if app.snapshot is not None else time.time()
        self.query_one(QueueTable).show(jobs, now)
        note = NO_PROVIDER if app.jobs_provider is None else NO_JOBS if not app.jobs else NO_MATCH if not jobs else ""
        self.query_one("#jobs-note", TextPanel).show_text(Text(note, style=p.muted))
        self.query_one("#jobs-note").display = bool(note)
