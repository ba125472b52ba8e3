"""The cluster overview: one row per GPU across all nodes, refreshed in place by the key 'node/index'."""

from __future__ import annotations

from typing import cast

from rich.text import Text
from textual import events

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.ui import cells
from gputui.ui.occupancy import holder_summary
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.row_table import ColumnSpec, Row, RowTable

WIDE_FROM = 120  # columns; below this the compact layout drops the name and mode columns
_PADDING = 2  # one blank cell each side of a column


def gpu_key(node: str, index: int) -> str:
    return f"{node}/{index}"


def _layout(width: int, node_w: int, name_w: int) -> tuple[list[ColumnSpec], dict[str, int]]:
    """Columns for a table ``width`` cells wide; the holder column takes what is left."""
    if width >= WIDE_FROM:
        bars = {"util": 10, "mem": 10}
        cols: list[ColumnSpec] = [
            ("node", "Node", node_w),
            ("gpu", "GPU", 3),
            ("name", "Model", name_w),
            ("util", "Util", bars["util"] + 5),
            ("mem", "Memory", bars["mem"] + 11),
            ("temp", "Temp", 5),
            ("power", "Power", 9),
            ("mode", "Mode", 7),
            ("badges", "MIG/MPS", 12),
        ]
    else:
        bars = {"util": 4, "mem": 3}
        cols = [
            ("node", "Node", node_w),
            ("gpu", "GPU", 3),
            ("util", "Util", bars["util"] + 5),
            ("mem", "Memory", bars["mem"] + 11),
            ("temp", "Temp", 5),
            ("power", "Power", 8),
            ("badges", "MIG/MPS", 7),
        ]
    used = sum(w + _PADDING for _, _, w in cols) + 2  # +2: room for a scrollbar
    cols.append(("holder", "Held by", max(8, width - used)))
    return cols, bars


def _holder_cell(gpu: GpuSnapshot, p: Palette) -> Text:
    text, kind = holder_summary(gpu)
    style = {"lost": p.lost, "free": p.free, "mig": p.mig, "mps": p.mps, "unattributed": p.warn}.get(kind, p.text)
    return Text(text, style=style, no_wrap=True, overflow="ellipsis")


def gpu_cells(node: str, gpu: GpuSnapshot, columns: list[ColumnSpec], bars: dict[str, int], p: Palette) -> list[Text]:
    """The cells of one overview row for the given columns."""
    out: list[Text] = []
    for key, _, _ in columns:
        if key == "node":
            out.append(Text(node, style=p.text, no_wrap=True, overflow="ellipsis"))
        elif key == "gpu":
            out.append(Text(str(gpu.index), style=p.text, justify="right"))
        elif key == "name":
            name = cells.short_name(gpu.name)
            out.append(cells.na(p) if name is None else Text(name, style=p.text, no_wrap=True, overflow="ellipsis"))
        elif key == "holder":
            out.append(_holder_cell(gpu, p))
        elif gpu.lost:
            out.append(cells.lost(p) if key == "util" else cells.na(p, "—"))
        elif key == "util":
            out.append(cells.percent_gauge(gpu.utilization_gpu, bars["util"], p))
        elif key == "mem":
            out.append(cells.memory_gauge(gpu.memory_used_mib, gpu.memory_total_mib, bars["mem"], p))
        elif key == "temp":
            out.append(cells.temperature(gpu.temperature_c, p))
        elif key == "power":
            out.append(cells.power(gpu.power_draw_w, gpu.power_limit_w, p))
        elif key == "mode":
            out.append(cells.compute_mode(gpu.compute_mode, p))
        elif key == "badges":
            out.append(cells.badges(gpu, p))
    return out


class OverviewTable(RowTable):
    """Every GPU of the cluster; ``show`` applies a snapshot without moving the cursor."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._snapshot: ClusterSnapshot | None = None
        self._layout_sig: tuple[int, int, int, int] | None = None
        self._bars: dict[str, int] = {}
        self._by_key: dict[str, tuple[NodeSnapshot, GpuSnapshot]] = {}

    def gpus_by_key(self) -> dict[str, tuple[NodeSnapshot, GpuSnapshot]]:
        """The node and GPU behind each row of the last snapshot shown."""
        return self._by_key

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        node, gpu = cast(tuple[str, GpuSnapshot], data)
        return gpu_cells(node, gpu, self.columns, self._bars, self.palette)

    def _ensure_layout(self, snap: ClusterSnapshot) -> bool:
        """Pick the columns for the current width and names; True when they changed (rows are then gone)."""
        width = self.size.width or self.app.size.width
        node_w = min(max([len(n.name) for n in snap.nodes] + [4]), 20)
        names = [cells.short_name(g.name) or "N/A" for n in snap.nodes for g in n.gpus]
        name_w = min(max([len(x) for x in names] + [5]), 18)
        sig = (1 if width >= WIDE_FROM else 0, node_w, name_w, width)
        if sig == self._layout_sig:
            return False
        self._layout_sig = sig
        columns, self._bars = _layout(width, node_w, name_w)
        self.set_columns(columns)
        return True

    def show(self, snap: ClusterSnapshot) -> int:
        """Apply a snapshot; returns the number of GPU rows whose data changed."""
        self._snapshot = snap
        keep = self.cursor_key
        relaid = self._ensure_layout(snap)
        rows: list[Row] = []
        self._by_key = {}
        for n in snap.nodes:
            for g in n.gpus:
                key = gpu_key(n.name, g.index)
                if key in self._by_key:  # a source that repeats a node or an index: keep every row apart
                    key = f"{key}#{len(rows)}"
                self._by_key[key] = (n, g)
                # The node's name, not the node: a node compares unequal whenever any of its GPUs changed.
                rows.append((key, (n.name, g)))
        changed = self.sync(rows)
        if relaid and keep is not None:
            self.select_key(keep)
        return changed

    def on_resize(self, event: events.Resize) -> None:
        if self._snapshot is not None:
            self.show(self._snapshot)
