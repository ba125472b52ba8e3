"""The detail pane of the highlighted GPU: identity and gauges, MIG layout, MPS state, processes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.ui import cells
from gputui.ui.mig_view import MigLayout
from gputui.ui.mps_view import MpsPanel
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.process_table import ProcessTable
from gputui.ui.text_panel import TextPanel


def _part(label: str, value: Text | str, p: Palette) -> Text:
    return Text.assemble((f"{label} ", p.muted), value if isinstance(value, Text) else Text(value, style=p.text))


def render_header(node: NodeSnapshot, gpu: GpuSnapshot, p: Palette = PLAIN) -> Text:
    """Two or three lines naming the GPU and giving every gauge the overview has no room for."""
    t = Text.assemble((f"{node.name} · GPU {gpu.index}", "bold"), "  ", (gpu.name or "N/A", p.text))
    if gpu.uuid:
        t.append(f"  {gpu.uuid}", style=p.muted)
    if gpu.pci_bus_id:
        t.append(f"  {gpu.pci_bus_id}", style=p.muted)
    if gpu.lost:
        t.append("\n✖ GPU lost: the driver no longer answers for it; values are stale or N/A", style=p.lost)
        return t
    mem = cells.memory_label(gpu.memory_used_mib, gpu.memory_total_mib)
    util = cells.na(p) if gpu.utilization_gpu is None else Text(f"{gpu.utilization_gpu}%", style=p.text)
    mem_util = cells.na(p) if gpu.utilization_memory is None else Text(f"{gpu.utilization_memory}%", style=p.text)
    fan = cells.na(p) if gpu.fan_percent is None else Text(f"{gpu.fan_percent}%", style=p.text)
    sm = cells.na(p) if gpu.clock_sm_mhz is None else Text(f"{gpu.clock_sm_mhz} MHz", style=p.text)
    pstate = cells.na(p) if gpu.performance_state is None else Text(gpu.performance_state, style=p.text)
    persist = cells.na(p) if gpu.persistence_mode is None else Text("on" if gpu.persistence_mode else "off")
    parts = [
        _part("util", util, p),
        _part("mem", Text(mem, style=p.na if gpu.memory_total_mib is None else p.text), p),
        _part("mem-bw", mem_util, p),
        _part("temp", cells.temperature(gpu.temperature_c, p), p),
        _part("power", cells.power(gpu.power_draw_w, gpu.power_limit_w, p), p),
    ]
    parts2 = [
        _part("fan", fan, p),
        _part("SM clock", sm, p),
        _part("pstate", pstate, p),
        _part("persistence", persist, p),
        _part("mode", cells.compute_mode(gpu.compute_mode, p, short=False), p),
    ]
    t.append("\n")
    t.append_text(Text("  ").join(parts))
    t.append("\n")
    t.append_text(Text("  ").join(parts2))
    return t


class DetailPane(Horizontal):
    """Left: header, MIG and MPS sections; right: the process table."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._shown: tuple[NodeSnapshot, GpuSnapshot] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-info"):
            yield TextPanel("No GPU selected", id="gpu-header")
            yield MigLayout(id="mig")
            yield MpsPanel(id="mps")
        yield ProcessTable(id="processes")

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
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
            self.query_one("#gpu-header", TextPanel).show_text(Text("No GPU selected", style=self.palette.muted))
            self.query_one(MigLayout).show(None)
            self.query_one(MpsPanel).show(None)
            self.query_one(ProcessTable).show(None)
            return
        if self._shown is not None and self._shown[1] == gpu and self._shown[0].name == node.name:
            return
        self._shown = (node, gpu)
        self.query_one("#gpu-header", TextPanel).show_text(render_header(node, gpu, self.palette))
        self.query_one(MigLayout).show(gpu)
        self.query_one(MpsPanel).show(gpu)
        self.query_one(ProcessTable).show(gpu)
