"""A Textual Strip that is cheap to make: plain dicts for its caches instead of seven FIFO caches.

Making a Strip makes seven small cache objects, about 7 us here: more than building a table row
from cached cells. A table refreshing 30 rows a second makes 90 strips (each row, and the two
pieces the compositor cuts it into at the scrollbar). A strip lives for a frame or two and is
cut and cropped at a handful of places, so unbounded dicts hold as little as the FIFO caches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.segment import Segment
from textual.strip import Strip

# The slots this class fills in; if Textual's Strip has others, LeanStrip falls back to Strip's own __init__.
_SLOTS = frozenset(
    (
        "_segments",
        "_cell_length",
        "_divide_cache",
        "_crop_cache",
        "_style_cache",
        "_filter_cache",
        "_render_cache",
        "_line_length_cache",
        "_crop_extend_cache",
        "_offsets_cache",
        "_link_ids",
        "_cell_count",
    )
)
_FITS = frozenset(Strip.__slots__) == _SLOTS


class LeanStrip(Strip):
    """A Strip with dicts for caches; ``divide`` (the compositor's cut at widget edges) makes LeanStrips too."""

    __slots__ = ()

    def __init__(self, segments: Iterable[Segment], cell_length: int | None = None) -> None:
        if not _FITS:
            super().__init__(segments, cell_length)
            return
        self._segments = segments if type(segments) is list else list(segments)
        self._cell_length = cell_length
        self._divide_cache = {}  # type: ignore[assignment]
        self._crop_cache = {}  # type: ignore[assignment]
        self._style_cache = {}  # type: ignore[assignment]
        self._filter_cache = {}  # type: ignore[assignment]
        self._line_length_cache = {}  # type: ignore[assignment]
        self._crop_extend_cache = {}  # type: ignore[assignment]
        self._offsets_cache = {}  # type: ignore[assignment]
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    def divide(self, cuts: Iterable[int]) -> Sequence[Strip]:
        """Strip.divide, making LeanStrips."""
        cell_length = self.cell_length
        kept = [cut for cut in cuts if cut <= cell_length]
        key = tuple(kept)
        cached = self._divide_cache.get(key)
        if cached is not None:
            return cached
        strips: list[Strip]
        if kept == [cell_length]:
            strips = [self]
        else:
            strips = []
            pos = 0
            for segments, cut in zip(Segment.divide(self._segments, kept), kept, strict=False):
                strips.append(LeanStrip(segments, cut - pos))
                pos = cut
        self._divide_cache[key] = strips
        return strips
