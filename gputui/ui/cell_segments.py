"""Turn one table cell (a Rich Text) into padded, styled segments without Rich's general text pipeline.

Cells are short and built by appending styled pieces, so their spans are ordered and do not
overlap; for those, slicing the plain text by span is several times faster than ``Text.render``.
Anything else (overlapping spans, a cell wider than its column) takes Rich's own path.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text


def _style(value: str | Style, console: Console) -> Style:
    return value if isinstance(value, Style) else console.get_style(value, default=Style())


def _slow(cell: Text, w: int, base: Style, over: Style, console: Console, edge: int = 1) -> list[Segment]:
    text = cell.copy()
    text.truncate(w, overflow="ellipsis")
    pad = w - text.cell_len
    if pad > 0:
        if cell.justify == "right":
            text.pad_left(pad)
        else:
            text.pad_right(pad)
    text.pad(edge)
    # Text.render leaves out the Text's own base style when it has no spans; add it here.
    own = base + _style(cell.style, console)
    return list(Segment.apply_style(text.render(console), own, over))


def cell_segments(cell: Text, w: int, base: Style, over: Style, console: Console, edge: int = 1) -> list[Segment]:
    """``cell`` padded to ``w`` cells plus ``edge`` blanks each side, in ``base`` + its styles + ``over``."""
    plain = cell.plain
    length = cell_len(plain)
    if length > w or "\n" in plain:
        return _slow(cell, w, base, over, console, edge)
    fill = " " * (w - length)
    blank = " " * edge
    left, right = (blank + fill, blank) if cell.justify == "right" else (blank, fill + blank)
    own = base + _style(cell.style, console)
    outer = own + over
    spans = cell.spans
    if not spans:
        return [Segment(left + plain + right, outer)]
    out = [Segment(left, outer)] if left else []
    at = 0
    for span in sorted(spans, key=lambda s: s.start):
        if span.start < at:
            return _slow(cell, w, base, over, console, edge)  # overlapping spans: let Rich combine them
        if span.start > at:
            out.append(Segment(plain[at : span.start], outer))
        if span.end > span.start:
            out.append(Segment(plain[span.start : span.end], own + _style(span.style, console) + over))
        at = max(at, span.end)
    if at < len(plain):
        out.append(Segment(plain[at:], outer))
    if right:
        out.append(Segment(right, outer))
    return merge(out)


def merge(segments: list[Segment]) -> list[Segment]:
    """Neighbours in the same style joined: fewer segments for Textual's filters and the terminal."""
    out: list[Segment] = []
    for seg in segments:
        if out and out[-1].style == seg.style:
            out[-1] = Segment(out[-1].text + seg.text, seg.style)
        else:
            out.append(seg)
    return out
