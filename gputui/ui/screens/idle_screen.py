"""The idle view: the units held by a job (or a process) whose utilisation stayed under the radar's threshold
for its window, with job, user, held since, idle for and memory held; Enter opens the unit's GPU."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widget import Widget

from gputui.dashboard.gpu_index import gpu_key
from gputui.dashboard.radar.rows import duration_text
from gputui.ui.palette import Palette
from gputui.ui.render.row_table import RowTable
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.screens.view_screen import ViewScreen
from gputui.ui.widgets.idle_table import IdleTable


class IdleScreen(ViewScreen):
    """Held but idle: the radar's rows, a summary line above them."""

    VIEW = "idle"

    def compose_body(self) -> Iterable[Widget]:
        self._summary = TextPanel("", id="idle-summary")
        self._table = IdleTable(id="idle-table")
        yield self._summary
        yield self._table

    def main_table(self) -> RowTable:
        return self._table

    def set_palette(self, palette: Palette) -> None:
        self._palette = palette
        self._table.set_palette(palette)

    def refresh_view(self) -> None:
        radar = self.gputui.state.radar
        result = radar.last
        self._table.show(result)
        p = getattr(self, "_palette", self.gputui.palette)
        rule = f"under {radar.threshold} % for {duration_text(radar.window_s)}"
        if result is None:
            text = Text(f"Waiting for the first frame: held units {rule} will be listed here.", style=p.muted)
        elif not result.idle:
            text = Text(f"No held GPU unit {rule}", style=p.text)
            text.append(f"  ·  {result.held} watched", style=p.muted)
        else:
            n = len(result.idle)
            text = Text(f"{n} held unit{'s' if n > 1 else ''} idle", style=p.idle)
            text.append(f" ({rule})", style=p.text)
            text.append(f"  ·  {result.held} watched", style=p.muted)
        if result is not None and result.unknown:
            # MIG instances, shares of a busy GPU, Slurm nodes without telemetry: not judged, listed dimmed
            text.append(f"  ·  {len(result.unknown)} without a reading", style=p.muted)
        self._summary.show_text(text)

    async def on_row_table_row_selected(self, event: RowTable.RowSelected) -> None:
        if event.table.id == "idle-table":
            event.stop()
            row = self._table.unit_at_cursor()
            if row is not None:
                key = gpu_key(row.key.node, row.key.gpu)
                if key in self.gputui.state.gpus:
                    self.gputui.state.selected_key = key
                    await self.app.run_action("view('detail')")
