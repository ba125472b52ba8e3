"""The GPU detail view: the detail pane of the selected GPU on the whole screen."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget

from gputui.ui.palette import Palette
from gputui.ui.render.row_table import RowTable
from gputui.ui.screens.view_screen import ViewScreen
from gputui.ui.widgets.detail import DetailPane
from gputui.ui.widgets.process_table import ProcessTable


class DetailScreen(ViewScreen):
    """MIG slots, MPS and processes of one GPU with room to read them; n / p move to the next GPU."""

    VIEW = "detail"

    def compose_body(self) -> Iterable[Widget]:
        yield DetailPane(id="detail")

    def main_table(self) -> RowTable:
        return self.query_one(ProcessTable)

    def set_palette(self, palette: Palette) -> None:
        self.query_one(DetailPane).set_palette(palette)

    def refresh_view(self) -> None:
        node, gpu = self.gputui.state.selected_gpu()
        self.query_one(DetailPane).show(node, gpu)
