"""Graphs of a value over time against a FIXED scale, drawn with block characters in eighths of a cell.

Textual's Sparkline scales to its own data, so a flat 50 % fills it completely (or not at all);
here the top of the graph is always the scale's maximum (100 %, 100 °C, the power limit), so a
flat 50 % is drawn half high. Time runs left to right, one column per bucket of seconds ending
at ``end``; a column without samples repeats its neighbour for short gaps and stays empty for
long ones, and a lost GPU shows a red mark in its column.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import islice

from rich.style import Style
from rich.text import Span, Text

from gputui.dashboard.history import Sample

BLOCKS = " ▁▂▃▄▅▆▇█"
LOST = "✖"  # a column where the GPU was lost
NA = "·"  # a column with samples that lack this value (the source does not report it)
MAX_HOLD = 3  # columns a value is carried over a gap in the samples (polls missed, a fast replay)

Pick = Callable[[Sample], float | None]


def _time(s: Sample) -> float:
    return s.t


def columns(samples: Sequence[Sample], pick: Pick, end: float, seconds: float, width: int) -> list[float | None | str]:
    """``width`` values, a bucket of ``seconds / width`` s each, ending at ``end``: mean, LOST, NA or None (no data)."""
    return columns_of(samples, (pick,), end, seconds, width)[0]


def columns_of(
    samples: Sequence[Sample], picks: Sequence[Pick], end: float, seconds: float, width: int
) -> list[list[float | None | str]]:
    """``columns`` for several values of the same samples, sorted into buckets once.

    ``samples`` are in time order (as History keeps them): only those inside the window are read,
    which matters because the history view draws four of these a GPU every second.
    """
    if width <= 0:
        return [[] for _ in picks]
    step = seconds / width
    start = end - seconds
    sums = [[0.0] * width for _ in picks]
    counts = [[0] * width for _ in picks]
    lost = [False] * width
    seen = [False] * width
    ceil, top = math.ceil, width - 1
    each = list(zip(picks, sums, counts, strict=True))
    for s in islice(samples, bisect_right(samples, start, key=_time), None):
        t = s.t
        if t > end:
            break
        i = ceil((t - start) / step) - 1  # buckets are (from, to]
        i = top if i > top else 0 if i < 0 else i
        seen[i] = True
        if s.lost:
            lost[i] = True
            continue
        for pick, sum_, count in each:
            v = pick(s)
            if v is not None:
                sum_[i] += v
                count[i] += 1
    return [_finish(sum_, count, lost, seen, width) for sum_, count in zip(sums, counts, strict=True)]


def _finish(
    sums: list[float], counts: list[int], lost: list[bool], seen: list[bool], width: int
) -> list[float | None | str]:
    """The buckets as columns: LOST, NA, the mean, the last mean held over a short gap, or None."""
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
    """A line of (character, style) cells as Text, with one span per run of equal style (as Text.append makes)."""
    chars: list[str] = []
    spans: list[Span] = []
    start, run_style = 0, None
    for at, (ch, st) in enumerate(cells):
        chars.append(ch)
        if st is not run_style:
            if at > start and run_style:
                spans.append(Span(start, at, run_style))
            start, run_style = at, st
    if len(chars) > start and run_style:
        spans.append(Span(start, len(chars), run_style))
    return Text("".join(chars), spans=spans)


def sparkline(
    values: Sequence[float | None | str], scale: float, style: Callable[[float], Style], lost: Style, na: Style
) -> Text:
    """One line of ``render_graph``: a column per value, eighths of a cell high (made directly: one a GPU and
    metric every second in the history view)."""
    empty = Style()
    marks = {LOST: lost, NA: na or empty}
    cells: list[tuple[str, Style]] = []
    for v in values:
        if v is None:
            cells.append((" ", empty))
        elif isinstance(v, str):
            cells.append((v, marks.get(v, na or empty)))
        else:
            part = _eighths(v, scale, 1)
            cells.append(
                (BLOCKS[part], style(min(100.0, v / scale * 100) if scale > 0 else 0.0)) if part else (" ", empty)
            )
    return _runs(cells)
