"""What a scrape reads: the latest frame, rendered once when first asked for and kept until the next frame."""

from __future__ import annotations

import threading

from gputui.export.families import families
from gputui.export.frame import Frame
from gputui.export.text_format import render_text


def render(frame: Frame) -> bytes:
    """The text exposition of one frame, as a scrape gets it."""
    return render_text(families(frame))


class FrameCollector:
    """The latest frame; ``update`` swaps it (from the poll loop), ``scrape`` renders it (from the HTTP threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frame: Frame | None = None
        self._text: bytes | None = None

    def update(self, frame: Frame) -> None:
        with self._lock:
            self._frame, self._text = frame, None

    def scrape(self) -> bytes | None:
        """The text of the latest frame; None before the first."""
        with self._lock:
            if self._text is None and self._frame is not None:
                self._text = render(self._frame)
            return self._text
