"""The frame every view shares: top bar with the view tabs, the view's body, the filter line,
the replay's event log and bar (when replaying), and the key bar.

Each view is a Textual screen of its own mode, given the ``Shell`` it draws for (the app: attributes
down). The dashboard state (snapshot, selected GPU, filter, history, jobs) lives in the model; the app calls
``refresh_view`` on the view in front, and a view brought back to the front pulls that state again, so
hidden views cost nothing while the data changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, Protocol

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget

from gputui.ui.palette import Palette
from gputui.ui.record_keys import RecordBadge
from gputui.ui.render.direct_lines import KeptLines
from gputui.ui.render.row_table import RowTable
from gputui.ui.widgets.bars import ClickBar, KeyBar, TopBar
from gputui.ui.widgets.event_log import EventLog
from gputui.ui.widgets.filter_bar import FilterBar
from gputui.ui.widgets.replay_bar import ReplayBar, ReplayStatus

if TYPE_CHECKING:
    from gputui.dashboard.jobs import JobsController
    from gputui.dashboard.replay import ReplayState
    from gputui.dashboard.state import DashboardState
    from gputui.sources.replay import ReplaySource
    from gputui.ui.job_keys import JobKeys
    from gputui.ui.keymap import KeyMap
    from gputui.ui.record_keys import RecordKeys

#: view name -> (key, tab title), in tab order
VIEWS: dict[str, tuple[str, str]] = {
    "overview": ("1", "Overview"),
    "detail": ("2", "Detail"),
    "history": ("3", "History"),
    "jobs": ("4", "Jobs"),
    "idle": ("5", "Idle"),
}


class Shell(Protocol):
    """What a view draws from and calls: the dashboard app, as the views see it."""

    state: DashboardState
    jobs: JobsController
    job_keys: JobKeys
    record_keys: RecordKeys
    palette: Palette
    shows_events: bool
    replay: ReplaySource | None

    def current_palette(self) -> Palette: ...

    keymap: KeyMap

    def replay_state(self) -> ReplayState | None: ...

    def set_filter(self, text: str) -> None: ...

    def take_first_poll(self) -> None: ...


class ViewScreen(KeptLines, Screen[None]):
    """A view; subclasses compose their body, draw it in ``refresh_view`` and name their sortable table."""

    VIEW: ClassVar[str] = "overview"

    def __init__(self, shell: Shell) -> None:
        super().__init__()
        self.gputui = shell

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield TopBar(id="topbar")
            yield RecordBadge(id="record-badge")
        yield from self.compose_body()
        yield FilterBar(id="filter")
        if self.gputui.shows_events:
            yield EventLog(replay=self.gputui.replay is not None, id="events")
        if self.gputui.replay is not None:
            yield ReplayBar(id="replay")
        yield KeyBar(id="keys")

    def compose_body(self) -> Iterable[Widget]:
        raise NotImplementedError

    def main_table(self) -> RowTable | None:
        """The table that '/' filters, 's' sorts and the cursor keys move in; None if the view has none."""
        return None

    def refresh_view(self) -> None:
        """Draw the app's current state into the body."""

    def set_palette(self, palette: Palette) -> None:
        """Take the colours of a new theme (the body's widgets; the bars are done here)."""

    # -- shared parts ----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.apply_palette()
        table = self.main_table()
        if table is not None:
            table.focus()

    def on_screen_resume(self) -> None:
        app = self.gputui
        app.take_first_poll()  # the first view: the first poll drawn before the first paint
        self.query_one(FilterBar).show_text(app.state.filter_text)
        self.refresh_bars()
        self.refresh_view()
        self.sync_replay()
        app.record_keys.show_badge()

    def apply_palette(self) -> None:
        app = self.gputui
        app.current_palette()
        self.set_palette(app.palette)
        if app.shows_events:
            self.query_one(EventLog).set_palette(app.palette)
        if app.replay is not None:
            self.query_one(ReplayBar).status.palette = app.palette
        self.refresh_bars()

    def refresh_bars(self) -> None:
        app = self.gputui
        top = self.query_one(TopBar)
        top.palette = app.palette
        top.subtitle = app.state.subtitle
        top.show(app.keymap.view_items(self.VIEW))
        self.query_one(KeyBar).show(app.keymap.key_items(self.VIEW), app.palette)

    def sync_replay(self) -> None:
        """Bring the event log and the replay bar up to date with the app."""
        app = self.gputui
        # A view whose children are still being mounted has none yet: they catch up at the next frame.
        if app.shows_events:
            for log in self.query(EventLog):
                log.sync(app.state.event_feed)
        state = app.replay_state()
        if state is not None:
            for status in self.query(ReplayStatus):
                status.show(state)

    async def on_click_bar_clicked(self, message: ClickBar.Clicked) -> None:
        message.stop()
        await self.app.run_action(message.action)

    def on_filter_bar_changed(self, message: FilterBar.Changed) -> None:
        message.stop()
        self.gputui.set_filter(message.text)

    # -- what the app's view actions do here ------------------------------------------------------
    def sort_next(self) -> str | None:
        """Sort the main table by its next column; what to tell the user (None: no table here)."""
        table = self.main_table()
        if table is None:
            return None
        column = table.cycle_sort()
        label = next((lbl for key, lbl, _ in table.columns if key == column), None)
        return f"sorted by {label}" if label else "original order"

    def sort_reverse(self) -> None:
        table = self.main_table()
        if table is not None and table.sort_column is not None:
            table.sort_by(table.sort_column, reverse=not table.sort_reverse)

    def gpu_order(self) -> list[str] | None:
        """The GPUs in the order this view lists them (filtered and sorted), or None if it lists none."""
        return None

    def toggle_detail(self) -> None:
        """Show or hide the view's detail pane (the overview has one)."""

    def action_job_states(self) -> None:
        """Show the next choice of jobs (all, active, ...) where the view lists jobs (the jobs view: 'f')."""

    def open_seek(self) -> None:
        for bar in self.query(ReplayBar):  # none while the view is still being built
            bar.open_seek()

    def open_filter(self) -> None:
        for bar in self.query(FilterBar):  # none while the view is still being built
            bar.open(self.gputui.state.filter_text)

    def show_filter(self, text: str) -> None:
        for bar in self.query(FilterBar):
            bar.show_text(text)
