"""The frame every view shares: top bar with the view tabs, the view's body, the filter line,
the replay's event log and bar (when replaying), and the key bar.

Each view is a Textual screen of its own mode. The app keeps the state (snapshot, selected GPU,
filter, history, jobs) and calls ``refresh_view`` on the view in front; a view brought back to
the front pulls that state again, so hidden views cost nothing while the data changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from gputui.ui.bars import ClickBar, KeyBar, TopBar
from gputui.ui.direct_lines import KeptLines
from gputui.ui.event_log import EventLog
from gputui.ui.filter_bar import FilterBar
from gputui.ui.palette import Palette
from gputui.ui.replay_bar import ReplayBar, ReplayStatus
from gputui.ui.row_table import RowTable

if TYPE_CHECKING:
    from gputui.ui.app import GputuiApp

#: view name -> (key, tab title), in tab order
VIEWS: dict[str, tuple[str, str]] = {
    "overview": ("1", "Overview"),
    "detail": ("2", "Detail"),
    "history": ("3", "History"),
    "jobs": ("4", "Jobs"),
}


class ViewScreen(KeptLines, Screen[None]):
    """A view; subclasses compose their body, draw it in ``refresh_view`` and name their sortable table."""

    VIEW: ClassVar[str] = "overview"

    @property
    def gputui(self) -> GputuiApp:
        return cast("GputuiApp", self.app)

    def compose(self) -> ComposeResult:
        yield TopBar(id="topbar")
        yield from self.compose_body()
        yield FilterBar(id="filter")
        if self.gputui.shows_events:
            yield EventLog(id="events")
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
        self.query_one(FilterBar).show_text(app.state.filter_text)
        self.refresh_bars()
        self.refresh_view()
        self.sync_replay()

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
        top.show(app.view_items(self.VIEW))
        self.query_one(KeyBar).show(app.key_items(), app.palette)

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

    def open_filter(self) -> None:
        for bar in self.query(FilterBar):  # none while the view is still being built
            bar.open(self.gputui.state.filter_text)

    def show_filter(self, text: str) -> None:
        for bar in self.query(FilterBar):
            bar.show_text(text)
