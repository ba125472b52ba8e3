"""The MIG layout of one GPU drawn as its memory slots: which GPU instance sits where, its compute
instances, and what still fits in the free slots."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.color import Color

from gputui.core.model import GpuInstance, GpuSnapshot
from gputui.core.plain_text import sanitise
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.widgets.cells import percent_gauge

if TYPE_CHECKING:
    from gputui.core.mig_profiles import GpuModel

DEFAULT_SLOTS = 8


def _block_styles(p: Palette) -> list[Style]:
    """Background styles for GI blocks, cycled so that neighbours differ; text in black or white for contrast."""
    out = []
    for s in (p.mig, p.mps, p.accent, p.gauge_low):
        colour = s.color.get_truecolor() if s.color else None
        if colour is None:
            out.append(Style(reverse=True))
            continue
        bg = Color(colour.red, colour.green, colour.blue)
        fg = "#000000" if bg.brightness > 0.5 else "#FFFFFF"
        out.append(Style(bgcolor=bg.hex6, color=fg, bold=True))
    return out


def _compute_slices(profile: str | None) -> int | None:
    """'1c.3g.20gb' -> 1, '3g.20gb' -> 3."""
    if not profile:
        return None
    m = re.match(r"(\d+)[cg]\.", profile)
    return int(m.group(1)) if m else None


def _slot_count(model: GpuModel | None, gis: tuple[GpuInstance, ...]) -> int:
    ends = [g.placement_start + (g.placement_size or 1) for g in gis if g.placement_start is not None]
    return max([model.memory_slices if model else DEFAULT_SLOTS, *ends])


def _mode_line(gpu: GpuSnapshot, p: Palette) -> Text | None:
    """A one-line MIG state when there is no layout to draw; None when there is one."""
    pending = gpu.mig_mode_pending
    if gpu.mig_mode_current is None and not gpu.gpu_instances:
        return Text.assemble(("MIG", "bold"), " ", ("N/A", p.na))
    if not gpu.mig_enabled and not gpu.gpu_instances:
        t = Text.assemble(("MIG", "bold"), " ", ("off", p.muted))
        if pending:
            t.append("  → on after the next GPU reset", style=p.warn)
        return t
    return None


def _diagram(gis: list[GpuInstance], slots: int, width: int, p: Palette) -> tuple[list[Text], list[str]]:
    """Three lines (slot numbers, GI blocks, CI split) and the warnings met while drawing."""
    sw = max(3, min(14, (width - 6) // slots))
    styles = _block_styles(p)
    numbers = Text("slot  ", style=p.muted)
    for s in range(slots):
        numbers.append(str(s).ljust(sw), style=p.muted)
    blocks, cis = Text("GI    ", style=p.muted), Text("CI    ", style=p.muted)
    warnings: list[str] = []
    by_start: dict[int, GpuInstance] = {}
    for gi in sorted(gis, key=lambda g: (g.placement_start or 0, g.gi_id or 0)):
        start = gi.placement_start or 0
        if start in by_start:
            warnings.append(f"GI {gi.gi_id} overlaps another GPU instance at slot {start}")
            continue
        by_start[start] = gi
    s, n = 0, 0
    while s < slots:
        g = by_start.get(s)
        if g is None:
            run = 1
            while s + run < slots and s + run not in by_start:
                run += 1
            blocks.append(" free ".center(run * sw, "░")[: run * sw], style=p.gauge_empty)
            cis.append(" " * run * sw)
            s += run
            continue
        size = max(1, g.placement_size or 1)
        span = size * sw
        style = styles[n % len(styles)]
        n += 1
        name = f" GI{g.gi_id if g.gi_id is not None else '?'}"
        label = f"{name} {g.profile or 'N/A'}"
        if len(label) > span - 1:
            label = name  # the profile is in the GI list below; a cut one would mislead ('1g' for '1g.10gb')
        blocks.append(label.ljust(span)[: span - 1] + "▕", style=style)
        cis.append(_ci_split(g, span, p))
        if s + size > slots:
            warnings.append(f"GI {g.gi_id} runs past the last slot")
        for other in range(s + 1, s + size):
            if other in by_start:
                warnings.append(f"GI {by_start[other].gi_id} overlaps GI {g.gi_id}")
        s += size
    return [numbers, blocks, cis], warnings


def _ci_split(g: GpuInstance, span: int, p: Palette) -> Text:
    if not g.compute_instances:
        return Text(" no CI".ljust(span)[:span], style=p.warn)
    each = max(1, span // len(g.compute_instances))
    t = Text()
    for i, ci in enumerate(g.compute_instances):
        slices = _compute_slices(ci.profile)
        label = f" CI{ci.ci_id if ci.ci_id is not None else '?'}" + (f" {slices}c" if slices else "")
        w = each if i < len(g.compute_instances) - 1 else span - each * i
        t.append(label.ljust(w)[: max(0, w - 1)] + ("┆" if w > 0 else ""), style=p.text)
    return t


ACTIVITY_NOTE = "activity: GPM, of each instance's own slices (a busy 1g instance reads 100 %)"


def _activity_line(g: GpuInstance, p: Palette) -> Text:
    """'    SM ██▌░░  31%  DRAM █░░░░  12%  tensor ...' from the instance's GPM figures; N/A without them."""
    t = Text("    ")
    a = g.activity
    if a is None:
        t.append("activity N/A", style=p.na)
        return t
    for label, value in (("SM", a.sm_active), ("DRAM", a.dram_active), ("tensor", a.tensor_active)):
        t.append(f"{label} ", style=p.muted)
        t.append_text(percent_gauge(value, 8, p))
        t.append("  ")
    if a.sm_occupancy is not None:
        t.append(f"occupancy {a.sm_occupancy}%", style=p.muted)
    return t


def _gi_line(g: GpuInstance, procs: int, p: Palette) -> Text:
    t = Text.assemble((f"GI {g.gi_id if g.gi_id is not None else 'N/A'} ", "bold"), (g.profile or "N/A", p.mig))
    if g.placement_start is None:
        t.append("  placement N/A", style=p.na)
    else:
        end = g.placement_start + (g.placement_size or 1) - 1
        t.append(f"  slots {g.placement_start}-{end}" if end > g.placement_start else f"  slot {end}")
    if g.memory_total_mib is not None:
        used = "N/A" if g.memory_used_mib is None else f"{g.memory_used_mib / 1024:.1f}"
        t.append(f"  mem {used}/{g.memory_total_mib / 1024:.1f} GiB")
    if g.sm_count is not None:
        t.append(f"  {g.sm_count} SM")
    t.append(f"  {procs} proc" + ("s" if procs != 1 else ""), style=p.text if procs else p.muted)
    for ci in g.compute_instances:
        t.append(f"\n    CI {ci.ci_id if ci.ci_id is not None else 'N/A'} {ci.profile or 'N/A'}")
        if ci.sm_count is not None:
            t.append(f"  {ci.sm_count} SM")
        if ci.mig_uuid:
            t.append(f"  {ci.mig_uuid}", style=p.muted)
    return t


def _fits_line(model: GpuModel, gis: list[GpuInstance], p: Palette) -> Text:
    if any(g.placement_start is None for g in gis):
        return _fits_by_slices(model, gis, p)
    used = 0
    for g in gis:
        if g.placement_start is not None:
            used |= ((1 << (g.placement_size or 1)) - 1) << g.placement_start
    fits = []
    for prof in model.profiles:
        if prof.name.endswith("+me"):
            continue
        starts = model.free_placements(prof, used)
        if starts:
            fits.append(f"{prof.name}@{','.join(map(str, starts))}")
    if not fits:
        return Text("nothing more fits", style=p.muted)
    return Text.assemble(("fits now: ", p.muted), (" ".join(fits), p.text))


def _fits_by_slices(model: GpuModel, gis: list[GpuInstance], p: Palette) -> Text:
    """Without placements (a log has none) only the slice counts can answer, and they can only rule out."""
    room = model.fits_by_slices([g.profile or "" for g in gis])
    if room is None:
        return Text("fits now: unknown (profiles and placements are not in the log)", style=p.muted)
    mem = sum(pr.memory_slices for g in gis if g.profile and (pr := model.profile(g.profile)))
    comp = sum(pr.compute_slices for g in gis if g.profile and (pr := model.profile(g.profile)))
    counts = f"{mem}/{model.memory_slices} memory, {comp}/{model.compute_slices} compute slices used"
    if not room:
        return Text(f"nothing more fits ({counts})", style=p.muted)
    return Text.assemble(
        ("may fit: ", p.muted),
        (" ".join(pr.name for pr in room), p.text),
        (f"  ({counts}; placements are not in the log)", p.muted),
    )


def render_mig(gpu: GpuSnapshot, width: int, p: Palette = PLAIN) -> Text:
    """The MIG section of the detail pane, ``width`` cells wide."""
    line = _mode_line(gpu, p)
    if line is not None:
        return line
    from gputui.core.mig_profiles import model_for  # the profile tables load on the first MIG GPU shown

    model = model_for(gpu.name)
    gis = list(gpu.gpu_instances)
    out = Text.assemble(("MIG", "bold"), " ", ("on", p.mig), f"  {len(gis)} GPU instance{'s' if len(gis) != 1 else ''}")
    if gpu.mig_mode_pending is False:
        out.append("  → off after the next GPU reset", style=p.warn)
    if model is None:
        out.append(f"  (no MIG table for {gpu.name or 'this GPU'}: slots assumed)", style=p.muted)
    placed = [g for g in gis if g.placement_start is not None]
    if placed or not gis:
        lines, warnings = _diagram(placed, _slot_count(model, tuple(placed)), width, p)
        for ln in lines:
            out.append("\n")
            out.append_text(ln)
        for w in warnings:
            out.append(f"\n⚠ {w}", style=p.warn)
    busy: dict[int | None, int] = {}
    for proc in gpu.processes:
        busy[proc.gi_id] = busy.get(proc.gi_id, 0) + 1
    if gis and gpu.activity_na:  # said once for the GPU, not on every instance
        out.append("\n")
        out.append(f"activity N/A: {sanitise(gpu.activity_na)}", style=p.na)
    shown = any(g.activity is not None for g in gis)  # a source without GPM: no line (one refused instance: the rest)
    if shown:
        out.append("\n")
        out.append(ACTIVITY_NOTE, style=p.muted)
    for g in sorted(gis, key=lambda g: (g.placement_start is None, g.placement_start or 0)):
        out.append("\n")
        out.append_text(_gi_line(g, busy.get(g.gi_id, 0) if g.gi_id is not None else 0, p))
        if shown:
            out.append("\n")
            out.append_text(_activity_line(g, p))
    if model is not None:
        out.append("\n")
        out.append_text(_fits_line(model, gis, p))
    return out


def _mig_key(gpu: GpuSnapshot | None) -> object:
    """What ``render_mig`` draws from: the same key draws the same text."""
    if gpu is None:
        return None
    gis = tuple((p.gi_id, p.ci_id) for p in gpu.processes) if gpu.mig_enabled else ()
    return (gpu.name, gpu.mig_mode_current, gpu.mig_mode_pending, gpu.gpu_instances, gis, gpu.activity_na)


class MigLayout(TextPanel):
    """Shows ``render_mig`` for the GPU it is given, redrawn when its width changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._gpu: GpuSnapshot | None = None
        self._key: object = None

    def show(self, gpu: GpuSnapshot | None) -> None:
        key = _mig_key(gpu)
        if gpu is not None and key == self._key:
            return  # utilization, power, ... changed; nothing this panel draws did
        self._gpu, self._key = gpu, key
        self._draw()

    def _draw(self) -> None:
        if self._gpu is None:
            self.show_text(Text(""))
            return
        self.show_text(render_mig(self._gpu, self.size.width or 80, self.palette))

    def on_resize(self) -> None:
        super().on_resize()
        self._draw()
