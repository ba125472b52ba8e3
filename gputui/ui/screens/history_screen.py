"""The history view: a sparkline row per GPU over the last minutes, and large graphs of the selected one.

Every graph has a fixed scale: utilization and memory 0-100 %, temperature 0-100 °C, power
0 to the GPU's power limit (when the limit is N/A, to the highest draw seen, as the title says).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import cast

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

from gputui.core.model import GpuSnapshot
from gputui.core.plain_text import sanitise
from gputui.dashboard.history import WINDOW_S, Sample
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.cell_segments import truncate
from gputui.ui.render.row_table import ColumnSpec, RowTable
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.screens.view_screen import ViewScreen
from gputui.ui.widgets import cells
from gputui.ui.widgets.graph import columns_of, render_graph, sparkline

Metric = tuple[str, str, Callable[[Sample], float | None]]  # key, title, value of a sample
METRICS: tuple[Metric, ...] = (
    ("util", "Utilization", attrgetter("util")),
    ("mem", "Memory", attrgetter("mem")),
    ("power", "Power", attrgetter("power")),
    ("temp", "Temperature", attrgetter("temp")),
)
PICKS = tuple(pick for _, _, pick in METRICS)
SHORT = {"util": "Util", "mem": "Mem", "power": "Power", "temp": "Temp"}
TEMP_SCALE = 100.0  # °C at the top of temperature graphs


def level_of(key: str, p: Palette) -> Callable[[float], Style]:
    """The colour of a graph's column by its height in per cent of the scale: for temperature (scaled 0-100 °C,
    so the per cent is the °C) the temperature thresholds, for the others the fill levels."""
    return p.temp_level if key == "temp" else p.level


def power_scale(series: list[Sample]) -> tuple[float, bool]:
    """The power graph's top: the latest known limit; else the highest draw seen (and False: not the limit)."""
    for s in reversed(series):
        if s.power_limit:
            return s.power_limit, True
    seen = [s.power for s in series if s.power is not None]
    return (max(seen) if seen else 100.0), False


def scale_of(key: str, series: list[Sample]) -> float:
    return power_scale(series)[0] if key == "power" else TEMP_SCALE if key == "temp" else 100.0


def _now(key: str, series: list[Sample]) -> str:
    last = series[-1] if series else None
    if last is None:
        return "N/A"
    if last.lost:
        return cells.LOST_MARK
    value = {"util": last.util, "mem": last.mem, "power": last.power, "temp": last.temp}[key]
    if value is None:
        return "N/A"
    return f"{value:.0f}W" if key == "power" else f"{value:.0f}°C" if key == "temp" else f"{value:.0f}%"


def _axis(key: str, scale: float) -> tuple[str, str, str]:
    unit = "W" if key == "power" else "°" if key == "temp" else "%"
    return f"{scale:.0f}{unit}", f"{scale / 2:.0f}{unit}", f"0{unit}"


def render_compact(title: str, series: list[Sample], end: float, width: int, p: Palette) -> Text:
    """One line per metric, for small terminals: name, value now and a sparkline on the same fixed scale."""
    out = [Text(title, style="bold")]
    for (key, name, _), values in zip(
        METRICS, columns_of(series, PICKS, end, WINDOW_S, max(1, width - 20)), strict=True
    ):
        line = Text.assemble((f"{name:<12}", "bold"), (f"{_now(key, series):>6} ", p.text))
        line.append_text(sparkline(values, scale_of(key, series), level_of(key, p), p.lost, p.na))
        out.append(line)
    out.append(
        Text(f"last {WINDOW_S / 60:.0f} min, fixed scales: 0-100 %, 0-100 °C, 0 to the power limit", style=p.muted)
    )
    return Text("\n").join(out)


def instance_lines(series: list[Sample], end: float, width: int, p: Palette) -> list[Text]:
    """A sparkline per MIG instance of its SM activity (GPM, 0-100 % of its own slices), under a title line;
    none when the samples carry no per-instance figures."""
    last = series[-1].instances if series else ()
    if not last:
        return []
    out = [Text.assemble(("SM activity per MIG instance", "bold"), ("  GPM, of each instance's own slices", p.muted))]
    picks = [_instance_pick(gi) for gi, _, _ in last]
    spark_w = max(1, width - 24)
    for (gi, profile, now), values in zip(last, columns_of(series, picks, end, WINDOW_S, spark_w), strict=True):
        label = f"GI {gi} {sanitise(profile) if profile else 'N/A'}"[:16]
        shown = "N/A" if now is None else f"{now:.0f}%"
        line = Text.assemble((f"{label:<16}", "bold"), (f"{shown:>6} ", p.text))
        line.append_text(sparkline(values, 100.0, p.level, p.lost, p.na))
        out.append(line)
    return out


def _instance_pick(gi: int) -> Callable[[Sample], float | None]:
    def pick(s: Sample) -> float | None:
        for g, _, v in s.instances:
            if g == gi:
                return v
        return None

    return pick


def render_graphs(title: str, series: list[Sample], end: float, width: int, height: int, p: Palette) -> Text:
    """The four graphs of one GPU in ``width`` x ``height`` cells: two columns when there is room, else one; under
    them, on a MIG GPU with GPM figures, a sparkline per instance."""
    extra = instance_lines(series, end, width, p)
    if extra:
        if height - len(extra) >= 12:
            graphs = render_graphs(
                title, [s._replace(instances=()) for s in series], end, width, height - len(extra), p
            )
            return Text("\n").join([graphs, *extra])
        compact = render_compact(title, series, end, width, p)
        return Text("\n").join([compact, *extra])
    cols = 2 if width >= 100 else 1
    rows = 4 // cols
    if (height - 1) // rows < 5:  # not even three lines of graph each: one line per metric
        return render_compact(title, series, end, width, p)
    graph_h = max(1, (height - 1) // rows - 2)  # a title line above each graph and a time axis below
    col_w = (width - (cols - 1) * 3) // cols
    blocks: list[list[Text]] = []
    axes = {key: _axis(key, scale_of(key, series)) for key, _, _ in METRICS}
    gutters = {key: max(len(x) for x in axis) + 1 for key, axis in axes.items()}
    # Graphs as wide as each other share one pass over the samples.
    by_width: dict[int, list[Metric]] = {}
    for metric in METRICS:
        by_width.setdefault(max(1, col_w - gutters[metric[0]]), []).append(metric)
    drawn: dict[str, list[float | None | str]] = {}
    for w, metrics in by_width.items():
        for (key, _, _), values in zip(
            metrics, columns_of(series, [m[2] for m in metrics], end, WINDOW_S, w), strict=True
        ):
            drawn[key] = values
    for key, name, _ in METRICS:
        scale = scale_of(key, series)
        top, mid, bottom = axes[key]
        gutter = gutters[key]
        values = drawn[key]
        lines = render_graph(values, scale, graph_h, level_of(key, p), Style(), p.lost, p.na)
        head = Text.assemble((name, "bold"), " ", (f"now {_now(key, series)}", p.text))
        if key == "power" and not power_scale(series)[1]:
            head.append("  (limit N/A: scaled to the highest draw)", style=p.muted)
        head.append(f"  last {WINDOW_S / 60:.0f} min", style=p.muted)
        block = [head]
        for i, line in enumerate(lines):
            label = top if i == 0 else bottom if i == len(lines) - 1 else mid if i == len(lines) // 2 else ""
            block.append(Text.assemble((label.rjust(gutter - 1) + "┤", p.muted), line))
        span = max(1, col_w - gutter)
        axis = f"-{WINDOW_S / 60:.0f} min".ljust(span - 3)[: max(0, span - 3)] + "now"
        block.append(Text(" " * gutter + axis, style=p.muted))
        blocks.append(block)
    out: list[Text] = [Text(title, style="bold")]
    for r in range(rows):
        row_blocks = blocks[r * cols : (r + 1) * cols]
        for i in range(max(len(b) for b in row_blocks)):
            line = Text()
            for j, b in enumerate(row_blocks):
                part = b[i] if i < len(b) else Text("")
                part = part.copy()
                truncate(part, col_w, pad=j < len(row_blocks) - 1)
                if j:
                    line.append("   ")
                line.append_text(part)
            out.append(line)
    return Text("\n").join(out)


class HistoryTable(RowTable):
    """A row per GPU with a sparkline per metric over the last minutes, on the same fixed scales."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.series: Callable[[str], list[Sample]] = lambda key: []
        self.end = 0.0
        self.sortable = frozenset(("node", "gpu", "util", "mem", "power", "temp"))
        self._width = -1
        self._spark = 10

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def _ensure_columns(self, node_w: int) -> None:
        width = self.size.width or 80
        if (width, node_w) == (self._width, getattr(self, "_node_w", None)):
            return
        self._width, self._node_w = width, node_w
        room = width - (node_w + 2) - (3 + 2) - 2
        each = max(10, room // 4 - 2)
        self._spark = max(3, each - 8)  # the value (6), a blank before the sparkline and one after it
        spec: list[ColumnSpec] = [("node", "Node", node_w), ("gpu", "GPU", 3)]
        # The window in the header where it fits whole (a sort arrow too), else the name alone, else its short form.
        last = f" (last {WINDOW_S / 60:.0f} min)"
        spec += [
            (key, f"{name}{last}" if len(name + last) < each else name if len(name) < each else SHORT[key], each)
            for key, name, _ in METRICS
        ]
        self.set_columns(spec)

    def row_cells(self, key: str, data: object) -> list[Text]:
        node, index, _ = cast(tuple[str, int, float], data)
        series = self.series(key)
        p = self.palette
        out = [Text(node, style=p.text, no_wrap=True, overflow="ellipsis"), Text(str(index), justify="right")]
        for (metric, _, _), values in zip(
            METRICS, columns_of(series, PICKS, self.end, WINDOW_S, self._spark), strict=True
        ):
            cell = Text(f"{_now(metric, series):>6} ", style=p.text)
            cell.append_text(sparkline(values, scale_of(metric, series), level_of(metric, p), p.lost, p.na))
            out.append(cell)
        return out

    def sort_value(self, column: str, data: object) -> object:
        node, index, _ = cast(tuple[str, int, float], data)
        if column == "node":
            return (node, index)
        if column == "gpu":
            return (index, node)
        series = self.series(f"{node}/{index}")
        last = series[-1] if series else None
        if last is None or last.lost:
            return None
        return {"util": last.util, "mem": last.mem, "power": last.power, "temp": last.temp}.get(column)

    def show(self, rows: list[tuple[str, str, GpuSnapshot]], end: float) -> None:
        """One row per (key, node name, GPU); ``end`` is the newest sample time (the graphs' right edge)."""
        self.end = end
        self._ensure_columns(min(max([len(n) for _, n, _ in rows] + [4]), 20))
        self.sync([(key, (node, gpu.index, end)) for key, node, gpu in rows])

    def on_resize(self, event: events.Resize) -> None:
        self._width = -1


class GraphPanel(TextPanel):
    """Large graphs of one GPU, redrawn at its size."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._args: tuple[str, list[Sample], float] | None = None

    def show(self, title: str, series: list[Sample], end: float) -> None:
        self._args = (title, series, end)
        self._draw()

    def _draw(self) -> None:
        if self._args is None:
            self.show_text(Text("No GPU selected", style=self.palette.muted))
            return
        title, series, end = self._args
        height = self.size.height or 20
        self.show_text(render_graphs(title, series, end, self.size.width or 80, height, self.palette))

    def on_resize(self) -> None:
        super().on_resize()
        self._draw()


class HistoryScreen(ViewScreen):
    """The history view; the cursor in the table picks the GPU drawn large below it."""

    VIEW = "history"

    def compose_body(self) -> Iterable[Widget]:
        yield HistoryTable(id="history-table")
        yield GraphPanel(id="graphs")

    def gpu_order(self) -> list[str] | None:
        table = self.main_table()
        return table.row_order if table.row_count else None

    def main_table(self) -> RowTable:
        return self.query_one(HistoryTable)

    def set_palette(self, palette: Palette) -> None:
        self.query_one(HistoryTable).set_palette(palette)
        self.query_one(GraphPanel).palette = palette

    def refresh_view(self) -> None:
        app = self.gputui
        table = self.query_one(HistoryTable)
        table.series = app.state.history.series
        end = app.state.history.latest or 0.0
        if app.state.snapshot is not None:
            table.show([(k, n.name, g) for k, n, g in app.state.visible_gpus()], end)
        if app.state.selected_key is not None and app.state.selected_key != table.cursor_key:
            table.select_key(app.state.selected_key)
        self._show_graphs()

    def _show_graphs(self) -> None:
        app = self.gputui
        key = app.state.selected_key
        node, gpu = app.state.selected_gpu()
        panel = self.query_one(GraphPanel)
        if key is None or node is None or gpu is None:
            panel.show("No GPU selected", [], 0.0)
            return
        title = f"{node.name} · GPU {gpu.index}  {gpu.name or 'N/A'}"
        panel.show(title, app.state.history.series(key), app.state.history.latest or 0.0)

    def on_row_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        if event.key is not None:
            self.gputui.state.selected_key = event.key
        self._show_graphs()
