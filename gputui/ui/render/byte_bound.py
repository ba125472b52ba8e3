"""A cache bounded by the bytes it holds, in two generations, so that what is in use survives a turn-over.

The render caches (a table's line strips, its cells' segments, the widened strips handed to the compositor, the
memoised cells) were bounded by entry count and emptied when full. A refreshing dashboard makes new entries every
second (values change), so each cache filled to its count over many minutes before its first clear, and the
resident size kept climbing for as long (about 1.7 MiB a minute on the demo); the count bounded the number of
entries, not what they weigh. Here entries go into a new generation; when its estimated bytes pass the budget,
the old generation is dropped and the new one becomes old. An entry looked up from the old generation moves back
into the new one, so the entries each frame uses stay, and the cache holds at most about twice its budget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from rich.text import Text
from textual.strip import Strip

V = TypeVar("V")

#: frames' worth of entries per generation (ByteBound.fit), and the least budget
FRAMES = 3
FLOOR = 16 * 1024
#: bytes of one Segment in a strip, as CPython holds it: the named tuple, its text and its share of a style
SEGMENT_BYTES = 120
#: a widget sizes its caches again at every this many frames (summing the strips' sizes is not free)
REFIT_EVERY = 32


def strip_bytes(strip: Strip) -> int:
    """About what a strip holds: its segments (their text included) and the strip itself."""
    return 200 + SEGMENT_BYTES * len(strip) + strip.cell_length


def frame_bytes(strips: list[Strip], height: int) -> int:
    """About what a frame of ``height`` lines like ``strips`` (not empty) holds: what a widget sizes its caches by."""
    return sum(strip_bytes(s) for s in strips) * max(1, height) // len(strips)


def text_bytes(text: Text) -> int:
    """About what a rich Text holds: the object, its string and its spans."""
    return 300 + len(text.plain) + 100 * len(text.spans)


class ByteBound(Generic[V]):
    """Values by key, at most about ``2 * budget`` bytes as ``size`` estimates them.

    ``new`` is the current generation's dict, for a caller's hot loop (a miss there goes through ``get``)."""

    __slots__ = ("budget", "new", "old", "used", "_size")

    def __init__(self, budget: int, size: Callable[[V], int]) -> None:
        self.budget = budget
        self._size = size
        self.new: dict[Hashable, V] = {}
        self.old: dict[Hashable, V] = {}
        self.used = 0  # estimated bytes in ``new``

    def __len__(self) -> int:
        return len(self.new) + len(self.old)

    def get(self, key: Hashable) -> V | None:
        hit = self.new.get(key)
        if hit is not None:
            return hit
        hit = self.old.pop(key, None)
        if hit is not None:
            self.put(key, hit)
        return hit

    def put(self, key: Hashable, value: V) -> None:
        size = self._size(value)
        if self.used + size > self.budget and self.new:
            self.old, self.new, self.used = self.new, {}, 0
        self.new[key] = value
        self.used += size

    def fit(self, frame_bytes: int, frames: int = FRAMES, floor: int = FLOOR) -> None:
        """Size each generation to ``frames`` frames of ``frame_bytes`` (what the widget shows at once): enough for
        the entries a frame uses to survive, and full within seconds, so that the memory levels off at once."""
        self.budget = max(floor, frames * frame_bytes)

    def clear(self) -> None:
        self.new, self.old, self.used = {}, {}, 0

    def held_bytes(self) -> int:
        """Estimated bytes of both generations (for tests and benchmarks: walks the old one)."""
        return self.used + sum(self._size(v) for v in self.old.values())


def pair_bytes(entry: tuple[Any, Strip]) -> int:
    """An entry that keeps a strip and the strip made from it (both counted: the entry keeps both alive)."""
    source, made = entry
    return strip_bytes(made) + (strip_bytes(source) if isinstance(source, Strip) and source is not made else 0)
