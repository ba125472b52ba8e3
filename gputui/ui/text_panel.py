"""A panel showing one Rich Text, wrapped by Rich and drawn line by line.

Static converts Rich Text into Textual Content on every update, a few milliseconds for a short
panel; here the Text is wrapped once per change with Rich and kept as strips. An unchanged update
costs nothing, and a layout pass (which reflows the whole screen) is asked for only when the
number of lines changes.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from gputui.ui.cell_segments import cell_segments
from gputui.ui.direct_lines import DirectLines


class TextPanel(DirectLines, Widget):
    """Shows one Rich Text; ``show_text`` is cheap when nothing changed."""

    DEFAULT_CSS = """
    TextPanel { height: auto; }
    """

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = text if isinstance(text, Text) else Text(text)
        self._sig: tuple[object, ...] | None = None
        self._strips: list[Strip] | None = None
        self._strips_width = -1
        self._strips_style: object = None
        self._blank: Strip | None = None

    @property
    def text(self) -> Text:
        return self._text

    def render(self) -> Text:
        return self._text

    def show_text(self, text: Text) -> None:
        sig = (text.plain, text.style, tuple(text.spans))
        if sig == self._sig:
            return
        before = len(self._strips) if self._strips is not None else None
        self._sig, self._text, self._strips = sig, text, None
        width = self.content_region.width
        if width <= 0 or not self.display:
            return  # not on screen: drawn (and measured) when it is shown again
        after = len(self._lines(width))
        self.refresh(layout=after != before)

    def _lines(self, width: int) -> list[Strip]:
        style = self.base_style
        if self._strips is None or width != self._strips_width or style != self._strips_style:
            console = self.app.console
            lines = self._text.split("\n", allow_blank=True)
            if all(line.cell_len <= width for line in lines):
                # Lines laid out to fit already (the usual case): no wrapping, each line straight to segments.
                plain = Style()
                self._strips = [
                    Strip(cell_segments(line, width, style, plain, console, edge=0), width) for line in lines
                ]
            else:
                options = console.options.update(width=max(1, width), height=None, no_wrap=False, highlight=False)
                wrapped = console.render_lines(self._text, options, style=style, pad=True, new_lines=False)
                self._strips = [Strip(line, width) for line in wrapped]
            self._strips_width, self._strips_style = width, style
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        lines = self._lines(width)
        if y < len(lines):
            return lines[y]
        blank = self._blank
        if blank is None or blank.cell_length != width:
            blank = self._blank = Strip.blank(width, self.base_style)
        return blank

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips = None
        self._blank = None

    def on_resize(self) -> None:
        self._strips = None
