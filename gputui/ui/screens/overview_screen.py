"""The cluster overview view: every GPU in one table, and the detail of the highlighted one below it."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget

from gputui.ui.palette import Palette
from gputui.ui.render.row_table import RowTable
from gputui.ui.screens.view_screen import ViewScreen
from gputui.ui.widgets.detail import DetailPane
from gputui.ui.widgets.overview import OverviewTable


class OverviewScreen(ViewScreen):
    """The first view: a row per GPU; Enter opens the detail view of the highlighted GPU."""

    VIEW = "overview"

    def compose_body(self) -> Iterable[Widget]:
        # Kept, not queried: both are drawn at every refresh.
        self._table = OverviewTable(id="overview")
        self._pane = DetailPane(id="detail")
        yield self._table
        yield self._pane

    def gpu_order(self) -> list[str] | None:
        table = self.main_table()
        return table.row_order if table.row_count else None

    def toggle_detail(self) -> None:
        detail = self.query_one("#detail")
        detail.display = not detail.display
        self.refresh_view()

    def main_table(self) -> RowTable:
        return self._table

    def set_palette(self, palette: Palette) -> None:
        self._table.set_palette(palette)
        self._pane.set_palette(palette)

    def refresh_view(self) -> None:
        app = self.gputui
        table = self._table
        state = app.state
        if (
            table.gpu_filter.text != state.filter_text
            or table.jobs_by_gpu is not state.jobs_by_gpu
            or table.idle_by_gpu is not state.idle_by_gpu
        ):
            table.jobs_by_gpu = state.jobs_by_gpu
            table.idle_by_gpu = state.idle_by_gpu
            table.gpu_filter = state.gpu_filter()
        if app.state.snapshot is not None:
            table.show(app.state.snapshot)
        if app.state.selected_key is not None and app.state.selected_key != table.cursor_key:
            table.select_key(app.state.selected_key)
        self._show_detail()

    def _show_detail(self) -> None:
        pane = self._pane
        if pane.display:  # hidden ('d'): drawn again when shown
            pane.show(*self.gputui.state.selected_gpu())

    def on_row_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        if event.table.id == "overview":
            event.stop()
            if event.key is not None:
                self.gputui.state.selected_key = event.key
            self._show_detail()

    async def on_row_table_row_selected(self, event: RowTable.RowSelected) -> None:
        if event.table.id == "overview":
            event.stop()
            self.gputui.state.selected_key = event.key
            await self.app.run_action("view('detail')")
