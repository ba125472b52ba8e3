"""Graphs of a value over time against a FIXED scale, drawn with block characters in eighths of a cell.

Textual's Sparkline scales to its own data, so a flat 50 % fills it completely (or not at all);
here the top of the graph is always the scale's maximum (100 %, 100 °C, the power limit), so a
flat 50 % is drawn half high. Time runs left to right, one column per bucket of seconds ending
at ``end``; a column without samples repeats its neighbour for short gaps and stays empty for
long ones, and a lost GPU shows a red mark in its column.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text

from gputui.ui.history import Sample

BLOCKS = " ▁▂▃▄▅▆▇█"
LOST = "✖"  # a column where the GPU was lost
NA = "·"  # a column with samples that lack this value (the source does not report it)
MAX_HOLD = 3  # columns a value is carried over a gap in the samples (polls missed, a fast replay)

Pick = Callable[[Sample], float | None]


def columns(samples: Sequence[Sample], pick: Pick, end: float, seconds: float, width: int) -> list[float | None | str]:
    """``width`` values, a bucket of ``seconds / width`` s each, ending at ``end``: mean, LOST, NA or None (no data)."""
    if width <= 0:
        return []
    step = seconds / width
    start = end - seconds
    sums = [0.0] * width
    counts = [0] * width
    lost = [False] * width
    seen = [False] * width
    for s in samples:
        if s.t <= start or s.t > end:
            continue
        i = min(width - 1, max(0, math.ceil((s.t - start) / step) - 1))  # buckets are (from, to]
        seen[i] = True
        if s.lost:
            lost[i] = True
            continue
        v = pick(s)
        if v is not None:
            sums[i] += v
            counts[i] += 1
    out: list[float | None | str] = []
    last: float | None = None
    held = 0
    for i in range(width):
        if lost[i] and not counts[i]:
            out.append(LOST)
            last = None
        elif seen[i] and not counts[i]:
            out.append(NA)
            last = None
        elif counts[i]:
            last = sums[i] / counts[i]
            held = 0
            out.append(last)
        elif last is not None and held < MAX_HOLD:
            held += 1
            out.append(last)
        else:
            out.append(None)
    # Trailing columns after the newest sample are the future of a paused replay or a missed poll: keep them empty.
    newest = max((i for i in range(width) if seen[i]), default=-1)
    return [v if i <= newest else None for i, v in enumerate(out)]


def _eighths(value: float, scale: float, height: int) -> int:
    if scale <= 0:
        return 0
    return max(0, min(height * 8, round(value / scale * height * 8)))


def render_graph(
    values: Sequence[float | None | str],
    scale: float,
    height: int,
    style: Callable[[float], Style],
    empty: Style,
    lost: Style,
    na: Style | None = None,
) -> list[Text]:
    """``height`` lines, top first; a value of ``scale`` fills a column, half of it fills half the height."""
    rows: list[list[tuple[str, Style]]] = [[] for _ in range(height)]
    for v in values:
        if v is None or isinstance(v, str):
            mark = " " if v is None else v
            mark_style = empty if v is None else lost if v == LOST else (na or empty)
            for level, row in enumerate(reversed(rows)):  # level 0 is the bottom line
                row.append((mark if level == 0 else " ", mark_style if level == 0 else empty))
            continue
        filled = _eighths(v, scale, height)
        colour = style(min(100.0, v / scale * 100) if scale > 0 else 0.0)
        for level, row in enumerate(reversed(rows)):
            part = min(8, max(0, filled - level * 8))
            row.append((BLOCKS[part], colour) if part else (" ", empty))
    return [_runs(row) for row in rows]


def _runs(cells: list[tuple[str, Style]]) -> Text:
    """A line of (character, style) cells as Text, with one span per run of equal style."""
    t = Text()
    run, run_style = "", None
    for ch, st in cells:
        if st is run_style:
            run += ch
            continue
        if run:
            t.append(run, style=run_style)
        run, run_style = ch, st
    if run:
        t.append(run, style=run_style)
    return t


def sparkline(
    values: Sequence[float | None | str], scale: float, style: Callable[[float], Style], lost: Style, na: Style
) -> Text:
    """One line of ``render_graph``: a column per value, eighths of a cell high."""
    return render_graph(values, scale, 1, style, Style(), lost, na)[0]
