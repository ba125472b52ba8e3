"""The cluster overview: one row per GPU across all nodes, refreshed in place by the key 'node/index'."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from operator import attrgetter
from typing import Any, cast

from rich.text import Text
from textual import events

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.node_faults import fault_line
from gputui.core.plain_text import sanitise
from gputui.dashboard.gpu_filter import GpuFilter
from gputui.dashboard.gpu_index import gpu_rows
from gputui.dashboard.occupancy import holder_summary
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.byte_bound import ByteBound, text_bytes
from gputui.ui.render.cell_memo import COLUMN_BUDGET
from gputui.ui.render.row_table import ColumnSpec, Row, RowTable
from gputui.ui.widgets import cells

WIDE_FROM = 120  # columns; below this the compact layout drops the name and mode columns
_PADDING = 2  # one blank cell each side of a column


#: the config file's names of the overview's columns (config_file.OVERVIEW_COLUMNS) -> their keys here
_CONFIG_NAMES = {"model": "name"}


def _layout(
    width: int, node_w: int, name_w: int, hidden: frozenset[str] = frozenset()
) -> tuple[list[ColumnSpec], dict[str, int]]:
    """Columns for a table ``width`` cells wide, without the ``hidden`` ones; the holder column takes what is
    left."""
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
    gone = {_CONFIG_NAMES.get(h, h) for h in hidden}
    cols = [c for c in cols if c[0] not in gone]
    used = sum(w + _PADDING for _, _, w in cols) + 2  # +2: room for a scrollbar
    cols.append(("holder", "Held by", max(8, width - used - _PADDING)))
    return cols, bars


def _holder_cell(text: str, kind: str, p: Palette, job: str | None = None) -> Text:
    style = {"lost": p.lost, "free": p.free, "mig": p.mig, "mps": p.mps, "unattributed": p.warn}.get(kind, p.text)
    if job is None:
        return Text(text, style=style, no_wrap=True, overflow="ellipsis")
    cell = Text(job, style=p.accent, no_wrap=True, overflow="ellipsis")
    if kind not in ("free", "unattributed"):
        cell.append(f" · {text}", style=style)
    return cell


def _plain(text: str, p: Palette, right: bool = False) -> Text:
    return Text(text, style=p.text, no_wrap=True, overflow="ellipsis", justify="right" if right else "left")


def _name(name: str | None, p: Palette) -> Text:
    return cells.na(p) if name is None else _plain(name, p)


CellMaker = Callable[[str, GpuSnapshot, "str | None"], Text]


def _maker(key: str, bars: dict[str, int], p: Palette) -> CellMaker:
    """The cell of column ``key`` for one GPU, memoised by exactly what the cell shows.

    Each maker keeps its own cells by value (see CellMemo for why equal values share a Text); a
    refresh builds a cell a GPU a column, so each is one call with the lookup inlined.
    """
    memo: ByteBound[Text] = ByteBound(COLUMN_BUDGET, text_bytes)

    def keep(k: Hashable, cell: Text) -> Text:
        memo.put(k, cell)
        return cell

    get = memo.get
    if key == "node":

        def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
            hit = get(n)
            return keep(n, _plain(n, p)) if hit is None else hit

    elif key == "gpu":

        def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
            hit = get(g.index)
            return keep(g.index, _plain(str(g.index), p, True)) if hit is None else hit

    elif key == "name":

        def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
            name = cells.short_name(g.name)
            hit = get(name)
            return keep(name, _name(name, p)) if hit is None else hit

    elif key == "holder":

        def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
            text, kind = holder_summary(g, held=job is not None)
            k = (text, kind, job)
            hit = get(k)
            return keep(k, _holder_cell(text, kind, p, job)) if hit is None else hit

    else:
        return _value_maker(key, bars, p, get, keep)
    return make


def _keyed(
    get: Callable[[Hashable], Text | None],
    keep: Callable[[Hashable, Text], Text],
    lost: Text,
    key_of: Callable[[GpuSnapshot], Hashable],
    render: Callable[[Any, GpuSnapshot], Text],
) -> CellMaker:
    """A maker showing ``lost`` for a lost GPU, else the cell kept for ``key_of(gpu)``, made by ``render(key, gpu)``
    the first time (the key holds everything the cell shows)."""

    def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
        if g.lost:
            return lost
        k = key_of(g)
        hit = get(k)
        return keep(k, render(k, g)) if hit is None else hit

    return make


def _mem_key(bar_w: int) -> Callable[[GpuSnapshot], Hashable]:
    def key(g: GpuSnapshot) -> Hashable:
        used, total = g.memory_used_mib, g.memory_total_mib
        # Only GiB to one decimal and the bar in eighths show: equal ones share a cell.
        return cells.memory_label(used, total), round(used / total * bar_w * 8) if used is not None and total else None

    return key


def _power_key(g: GpuSnapshot) -> Hashable:
    return None if g.power_draw_w is None else int(g.power_draw_w), g.power_limit_w


def _value_maker(
    key: str,
    bars: dict[str, int],
    p: Palette,
    get: Callable[[Hashable], Text | None],
    keep: Callable[[Hashable, Text], Text],
) -> CellMaker:
    """Makers of the value columns: a red mark (utilization) or a dash for a lost GPU, else the kept cell."""
    if key == "util":
        util_w = bars["util"]
        return _keyed(
            get, keep, cells.lost(p), attrgetter("utilization_gpu"), lambda u, g: cells.percent_gauge(u, util_w, p)
        )
    lost = cells.na(p, "—")
    if key == "mem":
        mem_w = bars["mem"]
        return _keyed(
            get,
            keep,
            lost,
            _mem_key(mem_w),
            lambda k, g: cells.memory_gauge(g.memory_used_mib, g.memory_total_mib, mem_w, p),
        )
    if key == "temp":
        return _keyed(get, keep, lost, attrgetter("temperature_c"), lambda t, g: cells.temperature(t, p))
    if key == "power":
        return _keyed(get, keep, lost, _power_key, lambda k, g: cells.power(k[0], k[1], p))
    if key == "mode":
        return _keyed(get, keep, lost, attrgetter("compute_mode"), lambda mode, g: cells.compute_mode(mode, p))
    if key == "badges":
        room = 12 if bars["util"] >= 10 else 0  # the wide layout's column has room for a block per MIG instance
        return _keyed(get, keep, lost, cells.badge_key, lambda k, g: cells.badges(g, p, room))

    def make(n: str, g: GpuSnapshot, job: str | None) -> Text:
        return lost if g.lost else Text()

    return make


def cell_makers(columns: list[ColumnSpec], bars: dict[str, int], p: Palette) -> list[CellMaker]:
    """One cell maker per column, for a layout and a palette: each keeps the cells it made for reuse."""
    return [_maker(key, bars, p) for key, _, _ in columns]


def gpu_cells(
    node: str,
    gpu: GpuSnapshot,
    columns: list[ColumnSpec],
    bars: dict[str, int],
    p: Palette,
    job: str | None = None,
) -> list[Text]:
    """The cells of one overview row; ``job`` is the job holding the GPU, if any."""
    return [make(node, gpu, job) for make in cell_makers(columns, bars, p)]


def _sort_value(column: str, node: str, gpu: GpuSnapshot) -> object:
    if column == "node":
        return (node, gpu.index)
    if column == "gpu":
        return (gpu.index, node)
    if column == "holder":
        return holder_summary(gpu)[0]
    if gpu.lost:
        return None
    if column == "name":
        return gpu.name
    if column == "util":
        return gpu.utilization_gpu
    if column == "mem":
        used, total = gpu.memory_used_mib, gpu.memory_total_mib
        return None if used is None or not total else used / total
    if column == "temp":
        return gpu.temperature_c
    if column == "power":
        return gpu.power_draw_w
    if column == "mode":
        return gpu.compute_mode
    if column == "badges":
        mps = gpu.mps
        return (len(gpu.gpu_instances) if gpu.mig_enabled else -1, len(mps.clients) if mps and mps.running else -1)
    return None


#: the stand-in GPU of a node row without GPUs (a host that never answered); never in ``gpus_by_key``
_NO_GPU = GpuSnapshot(index=-1)


class OverviewTable(RowTable):
    """Every GPU of the cluster; ``show`` applies a snapshot without moving the cursor off its GPU."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.gpu_filter = GpuFilter("")
        self.sortable = frozenset(("node", "gpu", "name", "util", "mem", "temp", "power", "mode", "badges", "holder"))
        self._snapshot: ClusterSnapshot | None = None
        self._layout_sig: tuple[int, int, int, int] | None = None
        self._bars: dict[str, int] = {}
        self._makers: list[CellMaker] | None = None  # made again when the palette or the layout changes
        self._by_key: dict[str, tuple[NodeSnapshot, GpuSnapshot]] = {}
        self.jobs_by_gpu: Mapping[str, str] = {}  # 'node/index' -> 'job 42 train', from the jobs provider
        self.idle_by_gpu: Mapping[str, str] = {}  # 'node/index' -> 'idle 14m', from the idle radar

    def gpus_by_key(self) -> dict[str, tuple[NodeSnapshot, GpuSnapshot]]:
        """The node and GPU behind each row of the last snapshot shown (filtered out ones included)."""
        return self._by_key

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._makers = None
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        node, gpu, job, idle, fault = cast(tuple[str, GpuSnapshot, str | None, str | None, str | None], data)
        makers = self._makers
        if makers is None:
            makers = self._makers = cell_makers(self.columns, self._bars, self.palette)
        out = [make(node, gpu, job) for make in makers]
        if fault is not None:  # the node's link is down: its state and reason where the holder would be
            out[-1] = Text(fault, style=self.palette.lost, no_wrap=True, overflow="ellipsis")
            if gpu.index < 0:
                out[1] = Text("-", style=self.palette.muted, justify="right")
        elif idle is not None and out:
            # The holder column is the last: the idle mark leads it, so that it shows at any width.
            if self.columns[-1][2] < 16:  # a narrow holder column: the mark without its duration
                idle = idle.split(" ", 1)[0]
            mark = Text(idle, style=self.palette.idle, no_wrap=True, overflow="ellipsis")
            out[-1] = Text.assemble(mark, " ", out[-1], no_wrap=True, overflow="ellipsis")
        return out

    def sort_value(self, column: str, data: object) -> object:
        node, gpu, job, _, fault = cast(tuple[str, GpuSnapshot, str | None, str | None, str | None], data)
        if column == "holder" and fault is not None:
            return fault
        if column == "holder" and job is not None:
            return job
        return _sort_value(column, node, gpu)

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
        columns, self._bars = _layout(width, node_w, name_w, getattr(self.app, "hidden_columns", frozenset()))
        self._makers = None
        self.set_columns(columns)
        return True

    def show(self, snap: ClusterSnapshot) -> int:
        """Apply a snapshot; returns the number of GPU rows whose data changed."""
        self._snapshot = snap
        keep = self.cursor_key
        relaid = self._ensure_layout(snap)
        rows: list[Row] = []
        by_key: dict[str, tuple[NodeSnapshot, GpuSnapshot]] = {}
        wanted = self.gpu_filter if self.gpu_filter else None
        job = self.jobs_by_gpu.get
        idle = self.idle_by_gpu.get
        faults = {n.name: sanitise(fault_line(n.fault)) for n in snap.nodes if n.fault is not None}
        for key, n, g in gpu_rows(snap):
            by_key[key] = (n, g)
            if wanted is not None and not wanted.matches(n.name, g):
                continue
            # The node's name, not the node: a node compares unequal whenever any of its GPUs changed.
            rows.append((key, (n.name, g, job(key), idle(key), faults.get(n.name) if faults else None)))
        for n in snap.nodes:
            # a node that never answered has no GPU to show: one row for the node says what is wrong
            if n.fault is not None and not n.gpus and (wanted is None or wanted.matches(n.name, _NO_GPU)):
                rows.append((f"{n.name}/-", (n.name, _NO_GPU, None, None, faults[n.name])))
        self._by_key = by_key
        changed = self.sync(rows)
        if relaid and keep is not None:
            self.select_key(keep)
        return changed

    def set_filter(self, gpu_filter: GpuFilter) -> None:
        """Show only the GPUs ``gpu_filter`` matches; the cursor stays on its GPU while that one is shown."""
        self.gpu_filter = gpu_filter
        if self._snapshot is not None:
            self.show(self._snapshot)

    def on_resize(self, event: events.Resize) -> None:
        if self._snapshot is not None:
            self.show(self._snapshot)
