"""The detail pane of the highlighted GPU: identity and gauges, MIG layout, MPS state, processes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.ui import cells
from gputui.ui.mig_view import MigLayout
from gputui.ui.mps_view import MpsPanel
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.process_table import ProcessTable
from gputui.ui.text_panel import TextPanel


def _part(label: str, value: Text | str, p: Palette) -> Text:
    # The space stays out of the label's style: SVG renderers squeeze a styled run that ends in a space.
    return Text.assemble((label, p.muted), " ", value if isinstance(value, Text) else Text(value, style=p.text))


def flow(parts: list[Text], width: int, gap: int = 2) -> Text:
    """``parts`` laid out left to right on as many lines as ``width`` needs, never breaking inside a part."""
    lines: list[Text] = []
    line = Text()
    for part in parts:
        if line.cell_len and line.cell_len + gap + part.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append(" " * gap)
        line.append_text(part)
    if line.cell_len:
        lines.append(line)
    return Text("\n").join(lines)


def _known(value: object, p: Palette, fmt: str = "{}") -> Text:
    return cells.na(p) if value is None else Text(fmt.format(value), style=p.text)


def render_header(node: NodeSnapshot, gpu: GpuSnapshot, p: Palette = PLAIN, width: int = 100) -> Text:
    """The GPU's name and every gauge the overview has no room for, as 'label value' parts fitted to ``width``."""
    ident = [Text.assemble((f"{node.name} · GPU {gpu.index}", "bold"), "  ", (gpu.name or "N/A", p.text))]
    if gpu.uuid:
        ident.append(Text(gpu.uuid, style=p.muted))
    if gpu.pci_bus_id:
        ident.append(Text(gpu.pci_bus_id, style=p.muted))
    head = flow(ident, width)
    if gpu.lost:
        head.append("\n✖ GPU lost: the driver no longer answers for it; values are stale or N/A", style=p.lost)
        return head
    mem = cells.memory_label(gpu.memory_used_mib, gpu.memory_total_mib)
    persist = None if gpu.persistence_mode is None else ("on" if gpu.persistence_mode else "off")
    gauges = [
        _part("util", _known(gpu.utilization_gpu, p, "{}%"), p),
        _part("mem", Text(mem, style=p.na if gpu.memory_total_mib is None else p.text), p),
        _part("mem-bw", _known(gpu.utilization_memory, p, "{}%"), p),
        _part("temp", cells.temperature(gpu.temperature_c, p), p),
        _part("power", cells.power(gpu.power_draw_w, gpu.power_limit_w, p), p),
    ]
    settings = [
        _part("fan", _known(gpu.fan_percent, p, "{}%"), p),
        _part("SM", _known(gpu.clock_sm_mhz, p, "{} MHz"), p),
        _part("pstate", _known(gpu.performance_state, p), p),
        _part("persist", _known(persist, p), p),
        _part("mode", cells.compute_mode(gpu.compute_mode, p, short=False), p),
    ]
    # Gauges and settings each start a line of their own, so that a glance finds them in one place.
    return Text("\n").join([head, flow(gauges, width), flow(settings, width)])


class GpuHeader(TextPanel):
    """Shows ``render_header`` for the GPU it is given, fitted to its width."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._shown: tuple[NodeSnapshot, GpuSnapshot] | None = None

    def show(self, node: NodeSnapshot | None, gpu: GpuSnapshot | None) -> None:
        self._shown = None if node is None or gpu is None else (node, gpu)
        self._draw()

    def _draw(self) -> None:
        if self._shown is None:
            self.show_text(Text("No GPU selected", style=self.palette.muted))
        else:
            self.show_text(render_header(*self._shown, self.palette, self.size.width or 100))

    def on_resize(self) -> None:
        super().on_resize()
        self._draw()


class DetailPane(Horizontal):
    """Left: header, MIG and MPS sections; right: the process table."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._shown: tuple[NodeSnapshot, GpuSnapshot] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-info"):
            yield GpuHeader(id="gpu-header")
            yield MigLayout(id="mig")
            yield MpsPanel(id="mps")
        # The border sits on a box around the table, so that the table itself draws its lines directly.
        with Vertical(id="processes-box"):
            yield ProcessTable(id="processes")

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.query_one(GpuHeader).palette = palette
        self.query_one(MigLayout).palette = palette
        self.query_one(MpsPanel).palette = palette
        self.query_one(ProcessTable).set_palette(palette)
        shown, self._shown = self._shown, None
        self.query_one(MigLayout).show(None)
        self.query_one(MpsPanel).show(None)
        if shown is not None:
            self.show(*shown)

    def show(self, node: NodeSnapshot | None, gpu: GpuSnapshot | None) -> None:
        """Show one GPU; ``None`` shows the empty state."""
        if node is None or gpu is None:
            self._shown = None
            self.query_one(GpuHeader).show(None, None)
            self.query_one(MigLayout).show(None)
            self.query_one(MpsPanel).show(None)
            self.query_one(ProcessTable).show(None)
            return
        if self._shown is not None and self._shown[1] == gpu and self._shown[0].name == node.name:
            return
        self._shown = (node, gpu)
        self.query_one(GpuHeader).show(node, gpu)
        self.query_one(MigLayout).show(gpu)
        self.query_one(MpsPanel).show(gpu)
        self.query_one(ProcessTable).show(gpu)
