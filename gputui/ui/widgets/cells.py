"""Rich Text for single table cells: gauges, N/A, temperatures, power, modes and badges.

Every function takes the value as the snapshot holds it, where ``None`` is N/A, and never raises
on odd values: a cell shows what it knows and marks the rest.
"""

from __future__ import annotations

from functools import lru_cache

from rich.text import Span, Text

from gputui.core.model import GpuSnapshot
from gputui.ui.palette import TEMP_HOT, TEMP_WARM, Palette

NA = "N/A"
LOST_MARK = "✖ LOST"
_PARTIAL = " ▏▎▍▌▋▊▉"

_MODE_SHORT = {
    "Default": "Default",
    "Exclusive_Process": "E.Proc",
    "Exclusive_Thread": "E.Thrd",
    "Prohibited": "Prohib",
}


def na(p: Palette, text: str = NA) -> Text:
    return Text(text, style=p.na)


def lost(p: Palette) -> Text:
    return Text(LOST_MARK, style=p.lost)


def _gauge(fraction: float, width: int, tail: str, p: Palette) -> Text:
    """A horizontal bar of ``width`` cells in eighths, coloured by its fill, then ``tail`` in the text colour; made
    as one Text in one go, as a refreshing table makes many."""
    fraction = min(max(fraction, 0.0), 1.0)
    full, part = divmod(round(fraction * width * 8), 8)
    filled = "█" * full + (_PARTIAL[part] if part and full < width else "")
    empty = "░" * (width - len(filled))
    spans = []
    at = len(filled)
    if empty and p.gauge_empty:  # as Text.append does: no span for empty text or a null style
        spans.append(Span(at, at + len(empty), p.gauge_empty))
    at += len(empty)
    if tail and p.text:
        spans.append(Span(at, at + len(tail), p.text))
    return Text(filled + empty + tail, style=p.level(fraction * 100), spans=spans)


def percent_gauge(value: int | None, width: int, p: Palette) -> Text:
    """'██▌░░░  31%' for a 0-100 value, N/A when unknown."""
    if value is None:
        return na(p)
    if width > 0:
        return _gauge(value / 100, width, f"{value:4d}%", p)
    t = Text()
    t.append(f"{value:4d}%", style=p.text)
    return t


def gib(mib: int) -> str:
    return f"{mib / 1024:.1f}"


def memory_label(used: int | None, total: int | None) -> str:
    if total is None:
        return NA if used is None else f"{gib(used)}G"
    u = NA if used is None else gib(used)
    return f"{u}/{total / 1024:.0f}G"


def memory_gauge(used: int | None, total: int | None, width: int, p: Palette) -> Text:
    """'███░░ 23.5/80G'; the bar is drawn only when both values are known."""
    if used is None and total is None:
        return na(p)
    label = memory_label(used, total)
    if used is None or not total:
        return Text(" " * (width + 1) if width else "", style=p.text) + na(p, label)
    if width > 0:
        return _gauge(used / total, width, f" {label}", p)
    t = Text()
    t.append(f" {label}", style=p.text)
    return t


def temperature(value: int | None, p: Palette) -> Text:
    if value is None:
        return na(p)
    style = p.gauge_high if value >= TEMP_HOT else p.gauge_mid if value >= TEMP_WARM else p.text
    return Text(f"{value}°C", style=style)


def power(draw: float | None, limit: float | None, p: Palette) -> Text:
    # whole watts truncated, as nvidia-smi prints them (37.62 W shows as 37W)
    if draw is None:
        return na(p) if limit is None else na(p, f"N/A/{int(limit)}W")
    if limit is None:
        return Text(f"{int(draw)}W", style=p.text)
    style = p.gauge_high if limit and draw / limit >= 0.95 else p.text
    return Text(f"{int(draw)}/{int(limit)}W", style=style)


def compute_mode(mode: str | None, p: Palette, short: bool = True) -> Text:
    if mode is None:
        return na(p)
    return Text(_MODE_SHORT.get(mode, mode) if short else mode, style=p.text if mode == "Default" else p.accent)


def badge_key(gpu: GpuSnapshot) -> tuple[object, ...]:
    """Everything ``badges`` depends on: equal keys draw equal badges."""
    mps = gpu.mps
    return (
        gpu.mig_enabled,
        len(gpu.gpu_instances),
        gpu.mig_mode_current,
        gpu.mig_mode_pending,
        mps is not None and mps.running,
        len(mps.clients) if mps is not None else 0,
        _instance_sm(gpu) if gpu.gpu_instances else (),
    )


_BLOCKS = " ▁▂▃▄▅▆▇█"


def _instance_sm(gpu: GpuSnapshot) -> tuple[int | None, ...]:
    """Each MIG instance's SM activity (GPM), in placement order; () when none has a figure."""
    gis = sorted(gpu.gpu_instances, key=lambda g: (g.placement_start is None, g.placement_start or 0))
    out = tuple(None if g.activity is None else g.activity.sm_active for g in gis)
    return out if any(v is not None for v in out) else ()


def badges(gpu: GpuSnapshot, p: Palette, room: int = 0) -> Text:
    """'MIG 3' (GPU instances) and 'MPS 2' (clients); 'MIG→on' / 'MIG→off' when a mode change is pending. With
    ``room`` cells and GPM figures, 'MIG 4 ▁█▁▅': a block per instance (in placement order) as high as its SM
    activity, of its own slices."""
    t = Text()
    if gpu.mig_enabled:
        t.append(f"MIG {len(gpu.gpu_instances)}", style=p.mig)
        sm = _instance_sm(gpu) if room else ()
        if sm and t.cell_len + 1 + len(sm) <= room and not (gpu.mps is not None and gpu.mps.running):
            t.append(" ")
            for v in sm:
                if v is None:
                    t.append("·", style=p.na)
                elif v <= 0:
                    t.append("▁", style=p.muted)  # known idle: the lowest block, dimmed
                else:
                    t.append(_BLOCKS[min(8, max(1, -(-v * 8 // 100)))], style=p.level(v))
    pending = gpu.mig_mode_pending
    if pending is not None and gpu.mig_mode_current is not None and pending != gpu.mig_mode_current:
        t.append(" " if t else "")
        t.append("MIG→on" if pending else "MIG→off", style=p.warn)
    if gpu.mps is not None and gpu.mps.running:
        t.append(" " if t else "")
        t.append(f"MPS {len(gpu.mps.clients)}", style=p.mps)
    return t


@lru_cache(maxsize=256)
def short_name(name: str | None) -> str | None:
    """'NVIDIA A100-SXM4-40GB' -> 'A100-SXM4-40GB'."""
    if name is None:
        return None
    for prefix in ("NVIDIA ", "Tesla ", "GeForce "):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name
