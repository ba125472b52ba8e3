"""The detail pane of the highlighted GPU: identity and gauges, MIG layout, MPS state, processes."""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.core.node_faults import fault_line
from gputui.core.plain_text import sanitise
from gputui.render.cells import cell_len
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.direct_lines import KeptLines
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.widgets import cells
from gputui.ui.widgets.mig_view import MigLayout
from gputui.ui.widgets.mps_view import MpsPanel
from gputui.ui.widgets.process_table import ProcessTable


def _part(label: str, value: Text | str, p: Palette) -> Text:
    # The space stays out of the label's style: SVG renderers squeeze a styled run that ends in a space.
    return Text.assemble((label, p.muted), " ", value if isinstance(value, Text) else Text(value, style=p.text))


def flow_lines(parts: list[Text], width: int, gap: int = 2) -> list[Text]:
    """``parts`` laid out left to right on as many lines as ``width`` needs, never breaking inside a part."""
    lines: list[Text] = []
    line = Text()
    used = 0  # the cells of ``line``, measured by gputui (rich's cache would keep every changing value)
    for part in parts:
        size = cell_len(part.plain)
        if used and used + gap + size > width:
            lines.append(line)
            line, used = Text(), 0
        if used:
            line.append(" " * gap)
            used += gap
        line.append_text(part)
        used += size
    if used:
        lines.append(line)
    return lines


def _known(value: object, p: Palette, fmt: str = "{}") -> Text:
    return cells.na(p) if value is None else Text(fmt.format(value), style=p.text)


def _ident(node: NodeSnapshot, gpu: GpuSnapshot, p: Palette) -> list[Text]:
    ident = [Text.assemble((f"{node.name} · GPU {gpu.index}", "bold"), "  ", (gpu.name or "N/A", p.text))]
    if gpu.uuid:
        ident.append(Text(gpu.uuid, style=p.muted))
    if gpu.pci_bus_id:
        ident.append(Text(gpu.pci_bus_id, style=p.muted))
    return ident


#: Words of a Slurm node state that mean it runs no new jobs: broken, or taken out of service.
_BROKEN_STATES = frozenset({"DOWN", "FAIL", "FAILING", "NOT_RESPONDING", "UNKNOWN"})
_OUT_STATES = frozenset({"DRAIN", "DRAINING", "DRAINED", "MAINT", "REBOOT_REQUESTED", "REBOOT_ISSUED", "RESERVED"})
_SHARE_LABELS = {"mps": "MPS used", "shard": "shards used"}


def _state_style(state: str, p: Palette) -> Style:
    words = set(state.upper().split("+"))
    return p.lost if words & _BROKEN_STATES else p.warn if words & _OUT_STATES else p.text


def _node_parts(node: NodeSnapshot, p: Palette) -> list[Text]:
    """The workload manager's view of the node: its state and its shared GRES (MPS, shards) as used/total."""
    parts = []
    if node.state is not None:
        parts.append(_part("Slurm node", Text(node.state, style=_state_style(node.state, p)), p))
    for name, total, used in node.shares:
        used_text = cells.na(p) if used is None else Text(str(used), style=p.text)
        parts.append(_part(_SHARE_LABELS.get(name, f"{name} used"), used_text + Text(f"/{total}", style=p.text), p))
    return parts


def _lost_note(p: Palette) -> list[Text]:
    return [Text("✖ GPU lost: the driver no longer answers for it; values are stale or N/A", style=p.lost)]


def _gauges(gpu: GpuSnapshot, p: Palette) -> list[Text]:
    mem = cells.memory_label(gpu.memory_used_mib, gpu.memory_total_mib)
    return [
        _part("util", _known(gpu.utilization_gpu, p, "{}%"), p),
        _part("mem", Text(mem, style=p.na if gpu.memory_total_mib is None else p.text), p),
        _part("mem-bw", _known(gpu.utilization_memory, p, "{}%"), p),
        _part("temp", cells.temperature(gpu.temperature_c, p), p),
        _part("power", cells.power(gpu.power_draw_w, gpu.power_limit_w, p), p),
    ]


def _settings(gpu: GpuSnapshot, p: Palette) -> list[Text]:
    persist = None if gpu.persistence_mode is None else ("on" if gpu.persistence_mode else "off")
    return [
        _part("fan", _known(gpu.fan_percent, p, "{}%"), p),
        _part("SM", _known(gpu.clock_sm_mhz, p, "{} MHz"), p),
        _part("pstate", _known(gpu.performance_state, p), p),
        _part("persist", _known(persist, p), p),
        _part("mode", cells.compute_mode(gpu.compute_mode, p, short=False), p),
    ]


HeaderGroup = tuple[tuple[object, ...], Callable[[Palette], list[Text]]]


def header_groups(node: NodeSnapshot, gpu: GpuSnapshot) -> list[HeaderGroup]:
    """The header's groups of parts, each starting a line of its own: (what it shows, a maker of its parts).

    Identity first, with the node's state and shares where a workload manager (Slurm) gives them; then
    the gauges and the settings, so that a glance finds each in one place, or the note that the GPU is
    lost. Equal keys make equal parts.
    """
    groups: list[HeaderGroup] = [
        (("ident", node.name, gpu.index, gpu.name, gpu.uuid, gpu.pci_bus_id), lambda p: _ident(node, gpu, p))
    ]
    if node.state is not None or node.shares:
        groups.append((("node", node.state, node.shares), lambda p: _node_parts(node, p)))
    if node.fault is not None:
        line = sanitise(fault_line(node.fault))
        groups.append((("fault", line), lambda p: [Text(f"✖ {line}; values N/A", style=p.lost)]))
    if gpu.lost:
        groups.append((("lost",), _lost_note))
        return groups
    gauges = (
        "gauges",
        gpu.utilization_gpu,
        cells.memory_label(gpu.memory_used_mib, gpu.memory_total_mib),
        gpu.memory_total_mib is None,
        gpu.utilization_memory,
        gpu.temperature_c,
        gpu.power_draw_w,
        gpu.power_limit_w,
    )
    settings = (
        "settings",
        gpu.fan_percent,
        gpu.clock_sm_mhz,
        gpu.performance_state,
        gpu.persistence_mode,
        gpu.compute_mode,
    )
    groups.append((gauges, lambda p: _gauges(gpu, p)))
    groups.append((settings, lambda p: _settings(gpu, p)))
    return groups


def render_header(node: NodeSnapshot, gpu: GpuSnapshot, p: Palette = PLAIN, width: int = 100) -> Text:
    """The GPU's name and every gauge the overview has no room for, as 'label value' parts fitted to ``width``."""
    lines = [line for _, make in header_groups(node, gpu) for line in flow_lines(make(p), width)]
    return Text("\n").join(lines)


class GpuHeader(TextPanel):
    """Shows ``render_header`` for the GPU it is given, fitted to its width.

    It refreshes every second with the GPU's values: each group of parts is laid out again only
    when what it shows changed, and only its lines are drawn again.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._shown: tuple[NodeSnapshot, GpuSnapshot] | None = None
        self._laid: list[tuple[tuple[object, ...], int, Palette, list[Text]]] = []  # per group: key, width, lines

    def show(self, node: NodeSnapshot | None, gpu: GpuSnapshot | None) -> None:
        self._shown = None if node is None or gpu is None else (node, gpu)
        self._draw()

    def _draw(self) -> None:
        if self._shown is None:
            self._laid = []
            self.show_text(Text("No GPU selected", style=self.palette.muted))
            return
        width, p = self.size.width or 100, self.palette
        before, laid = self._laid, []
        lines: list[Text] = []
        for i, (key, make) in enumerate(header_groups(*self._shown)):
            entry = before[i] if i < len(before) else None
            if entry is None or entry[0] != key or entry[1] != width or entry[2] is not p:
                entry = (key, width, p, flow_lines(make(p), width))
            laid.append(entry)
            lines.extend(entry[3])
        self._laid = laid
        self.show_lines(lines)

    def on_resize(self) -> None:
        super().on_resize()
        self._draw()


def _same_node(a: NodeSnapshot, b: NodeSnapshot) -> bool:
    """Equal in what the pane shows of the node (comparing the nodes would compare all their GPUs)."""
    return a.name == b.name and a.state == b.state and a.shares == b.shares and a.fault == b.fault


class _InfoBox(KeptLines, VerticalScroll):
    """The scrolling column of header, MIG and MPS sections."""


class _ProcessesBox(KeptLines, Vertical):
    """The bordered box around the process table."""


class DetailPane(KeptLines, Horizontal):
    """Left: header, MIG and MPS sections; right: the process table."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._shown: tuple[NodeSnapshot, GpuSnapshot] | None = None
        # Kept, not queried: the pane shows the highlighted GPU at every refresh.
        self._header = GpuHeader(id="gpu-header")
        self._mig = MigLayout(id="mig")
        self._mps = MpsPanel(id="mps")
        self._processes = ProcessTable(id="processes")

    def compose(self) -> ComposeResult:
        with _InfoBox(id="detail-info"):
            yield self._header
            yield self._mig
            yield self._mps
        # The border sits on a box around the table, so that the table itself draws its lines directly.
        with _ProcessesBox(id="processes-box"):
            yield self._processes

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._header.palette = palette
        self._mig.palette = palette
        self._mps.palette = palette
        self._processes.set_palette(palette)
        shown, self._shown = self._shown, None
        self._mig.show(None)
        self._mps.show(None)
        if shown is not None:
            self.show(*shown)

    def show(self, node: NodeSnapshot | None, gpu: GpuSnapshot | None) -> None:
        """Show one GPU; ``None`` shows the empty state."""
        if node is None or gpu is None:
            self._shown = None
            self._header.show(None, None)
            self._mig.show(None)
            self._mps.show(None)
            self._processes.show(None)
            return
        shown = self._shown
        if shown is not None and shown[1] == gpu and _same_node(shown[0], node):
            return
        self._shown = (node, gpu)
        self._header.show(node, gpu)
        self._mig.show(gpu)
        self._mps.show(gpu)
        self._processes.show(gpu)
