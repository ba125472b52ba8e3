"""Turn one table cell (a Rich Text) into padded, styled segments without Rich's general text pipeline.

Cells are short and built by appending styled pieces, so their spans are ordered and do not
overlap; for those, slicing the plain text by span is several times faster than ``Text.render``.
Anything else (overlapping spans, a cell wider than its column) takes Rich's own path.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from gputui.render.cells import cell_len, set_cell_size
from gputui.ui.render.byte_bound import SEGMENT_BYTES, ByteBound

#: One cell as a table's cache keeps it: the cell, its segments, the first segment's style and text, the rest, and
#: the last one's style (what a row's hot loop reads, taken out once).
CellEntry = tuple[Text, list[Segment], "Style | None", str, list[Segment], "Style | None"]


def _style(value: str | Style, console: Console) -> Style:
    return value if isinstance(value, Style) else console.get_style(value, default=Style())


_NULL = Style()
# (id(a), id(b), id(c)) -> (a, b, c, a + b + c): hashing ids is C work, hashing a Style a Python call. Bounded
# by bytes (an entry holds three styles and their sum: about 600 bytes), in two generations (byte_bound.py).
_SUMS: ByteBound[tuple[object, object, object, Style]] = ByteBound(64 * 1024, lambda entry: 600)


def _sum(a: Style, b: str | Style, c: Style, console: Console) -> Style:
    """``a + b + c`` as styles, kept: a refreshing table adds the same few styles over and over."""
    key = (id(a), id(b), id(c))
    hit = _SUMS.new.get(key) or _SUMS.get(key)
    if hit is not None and hit[0] is a and hit[1] is b and hit[2] is c:  # held, so the ids are not reused
        return hit[3]
    total = a + _style(b, console) + c
    _SUMS.put(key, (a, b, c, total))
    return total


def truncate(text: Text, width: int, *, ellipsis: bool = False, pad: bool = False) -> None:
    """``Text.truncate`` (cropped, or ending in an ellipsis; padded with spaces when ``pad``), measured by
    render/cells.py: rich's own keeps every string it measures in its process-wide cache."""
    length = cell_len(text.plain)
    if length > width:
        text.plain = set_cell_size(text.plain, width - 1) + "…" if ellipsis else set_cell_size(text.plain, width)
    elif pad and length < width:
        text.pad_right(width - length)


def _slow(cell: Text, w: int, base: Style, over: Style, console: Console, edge: int = 1) -> list[Segment]:
    text = cell.copy()
    truncate(text, w, ellipsis=True)
    pad = w - cell_len(text.plain)
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
    own = _sum(base, cell.style, _NULL, console)
    outer = _sum(own, _NULL, over, console)
    spans = cell.spans
    if not spans:
        return [Segment(left + plain + right, outer)]
    out = [Segment(left, outer)] if left else []
    at = 0
    for start, end, span_style in spans:
        if start < at:
            # Spans out of order or overlapping (cells are built by appending, so hardly ever): Rich combines them.
            return _slow(cell, w, base, over, console, edge)
        if start > at:
            out.append(Segment(plain[at:start], outer))
        if end > start:
            out.append(Segment(plain[start:end], _sum(own, span_style, over, console)))
        at = max(at, end)
    if at < len(plain):
        out.append(Segment(plain[at:], outer))
    if right:
        out.append(Segment(right, outer))
    return merge(out)


def merge(segments: list[Segment]) -> list[Segment]:
    """Neighbours in the same style joined: fewer segments for Textual's filters and the terminal.

    Styles are compared by identity: sums of the same styles are the same object (see ``_sum``),
    and comparing by value costs more than the rare equal pair that stays apart.
    """
    out: list[Segment] = []
    last: Style | None = None
    for seg in segments:
        style = seg.style
        if out and style is last:
            out[-1] = Segment(out[-1].text + seg.text, style)
        else:
            out.append(seg)
        last = style
    return out


def cell_entry(cell: Text, w: int, base: Style, over: Style, console: Console) -> CellEntry:
    """:func:`cell_segments` of one cell, as a table's cache keeps it."""
    segments = cell_segments(cell, w, base, over, console)
    first = segments[0]
    return (cell, segments, first.style, first.text, segments[1:], segments[-1].style)


def entry_bytes(entry: CellEntry) -> int:
    return 200 + SEGMENT_BYTES * len(entry[1])  # the cell's Text is the memo's; its segments are the cache's
