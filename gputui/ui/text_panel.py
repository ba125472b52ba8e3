"""A Static for Rich Text that skips unchanged updates and asks for a layout pass only when its height may change.

A layout pass reflows and repaints the whole screen; for a panel whose numbers change every second
but whose shape does not, a plain repaint of the panel itself is enough.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class TextPanel(Static):
    """Shows one Rich Text; ``show_text`` is cheap when nothing changed."""

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(text, id=id)
        self._sig: tuple[object, ...] | None = None
        self._height: int | None = None

    def show_text(self, text: Text) -> None:
        sig = (text.plain, text.style, tuple(text.spans))
        if sig == self._sig:
            return
        width = self.content_region.width
        height = len(text.wrap(self.app.console, width)) if width > 0 else None
        layout = height is None or height != self._height
        self._sig, self._height = sig, height
        self.update(text, layout=layout)

    def on_resize(self) -> None:
        self._sig = None  # redraw at the new width
