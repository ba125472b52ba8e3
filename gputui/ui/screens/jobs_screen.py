"""The jobs view: the job queue and its running jobs, or a note where no queue is attached."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import events
from textual.widget import Widget

from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.row_table import ColumnSpec, RowTable
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.screens.view_screen import ViewScreen
from gputui.ui.widgets.jobs_view import JobsView

NO_QUEUE = "No job queue is attached to this dashboard. Jobs come from `gputui submit`."

_FIXED: list[ColumnSpec] = [
    ("id", "Job", 8),
    ("state", "State", 9),
    ("user", "User", 10),
    ("name", "Name", 16),
    ("request", "Asked for", 14),
    ("where", "Runs on", 14),
    ("age", "Waited/ran", 10),
]


class QueueTable(RowTable):
    """The jobs view's empty table where no job queue is attached: the columns a queue's jobs would fill."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sortable = frozenset(k for k, _, _ in _FIXED) | {"reason"}
        self._width = -1

    def row_cells(self, key: str, data: object) -> list[Text]:
        return []

    def show(self) -> None:
        width = self.size.width or 80
        if width != self._width:
            self._width = width
            used = sum(w + 2 for _, _, w in _FIXED) + 4
            self.set_columns([*_FIXED, ("reason", "Reason", max(10, width - used))])
        self.sync([])

    def on_resize(self, event: events.Resize) -> None:
        self._width = -1


class JobsScreen(ViewScreen):
    """The jobs view: the job service's queue (with a detail pane) when one is attached, else a note saying so."""

    VIEW = "jobs"

    def compose_body(self) -> Iterable[Widget]:
        app = self.gputui
        if app.jobs.attached:
            yield JobsView(app.jobs, own_filter=False, id="jobs-view")
            return
        yield TextPanel("", id="jobs-note")
        yield QueueTable(id="queue-table")

    def main_table(self) -> RowTable:
        views = self.query(JobsView)
        return views.first().table if views else self.query_one(QueueTable)

    def action_job_states(self) -> None:
        for view in self.query(JobsView):
            view.action_cycle_states()

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        for view in self.query(JobsView):
            view.set_palette(palette)

    def refresh_view(self) -> None:
        app = self.gputui
        views = self.query(JobsView)
        if views:
            views.first().set_filter(app.state.filter_text)
            app.job_keys.show_jobs()
            return
        p = getattr(self, "_palette", PLAIN)
        for table in self.query(QueueTable):  # none while the body is still being mounted
            table.show()
            self.query_one("#jobs-note", TextPanel).show_text(Text(NO_QUEUE, style=p.muted))
