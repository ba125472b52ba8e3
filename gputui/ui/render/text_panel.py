"""A panel showing one Rich Text, wrapped by Rich and drawn line by line.

Static converts Rich Text into Textual Content on every update, a few milliseconds for a short
panel; here the Text is wrapped once per change with Rich and kept as strips. An unchanged update
costs nothing, and a layout pass (which reflows the whole screen) is asked for only when the
number of lines changes. A panel given its lines one by one (``show_lines``) redraws only those
that changed.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from gputui.render.cells import cell_len
from gputui.ui.render.cell_segments import cell_segments
from gputui.ui.render.direct_lines import DirectLines
from gputui.ui.render.lean_strip import LeanStrip

_PLAIN = Style()


class TextPanel(DirectLines, Widget):
    """Shows one Rich Text; ``show_text`` is cheap when nothing changed."""

    DEFAULT_CSS = """
    TextPanel { height: auto; }
    """

    def __init__(self, text: Text | str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text: Text | None = text if isinstance(text, Text) else Text(text)
        self._line_texts: list[Text] | None = None  # what show_lines gave, the lines as they are drawn
        self._sig: tuple[object, ...] | None = None
        self._strips: list[Strip] | None = None
        self._strips_width = -1
        self._strips_style: object = None
        self._one_strip_a_line = False  # no line was wrapped: strip i draws line i
        self._blank: Strip | None = None

    @property
    def text(self) -> Text:
        if self._text is None:
            self._text = Text("\n").join(self._line_texts or [])
        return self._text

    def render(self) -> Text:
        return self.text

    def show_text(self, text: Text) -> None:
        sig = (text.plain, text.style, tuple(text.spans))
        if sig == self._sig:
            return
        self._sig, self._text, self._line_texts = sig, text, None
        self._redraw()

    def show_lines(self, lines: list[Text]) -> None:
        """Show ``lines``, each laid out by the caller to fit the width (a longer one is wrapped).

        A line that is the same object as the one shown in its place costs nothing, and when the
        number of lines stays the same only the changed ones are drawn again.
        """
        old, strips, width = self._line_texts, self._strips, self.content_region.width
        same_count = old is not None and len(old) == len(lines)
        changed = (
            [i for i, (a, b) in enumerate(zip(old, lines, strict=True)) if a is not b] if old and same_count else None
        )
        if changed == []:
            return
        self._sig, self._text, self._line_texts = None, None, list(lines)
        if (
            changed is None
            or strips is None
            or not self._one_strip_a_line
            or width <= 0
            or not self.display
            or width != self._strips_width
            or self.base_style != self._strips_style
            or any(cell_len(lines[i].plain) > width or "\n" in lines[i].plain for i in changed)
        ):
            self._redraw()
            return
        style, console, plain = self.base_style, self.app.console, _PLAIN  # one object: cell_segments keys by id
        for i in changed:
            strips[i] = LeanStrip(cell_segments(lines[i], width, style, plain, console, edge=0), width)
        self.refresh(*[Region(0, i, width, 1) for i in changed])

    def _redraw(self) -> None:
        """Draw the panel again from its text; lay the screen out again only if the number of lines changed."""
        before = len(self._strips) if self._strips is not None else None
        self._strips = None
        width = self.content_region.width
        if width <= 0 or not self.display:
            return  # not on screen: drawn (and measured) when it is shown again
        after = len(self._lines(width))
        self.refresh(layout=after != before)

    def _lines(self, width: int) -> list[Strip]:
        style = self.base_style
        if self._strips is None or width != self._strips_width or style != self._strips_style:
            console = self.app.console
            given = self._line_texts
            lines = given if given is not None else self.text.split("\n", allow_blank=True)
            self._one_strip_a_line = all(cell_len(line.plain) <= width and "\n" not in line.plain for line in lines)
            if self._one_strip_a_line:
                # Lines laid out to fit already (the usual case): no wrapping, each line straight to segments.
                plain = Style()
                self._strips = [
                    LeanStrip(cell_segments(line, width, style, plain, console, edge=0), width) for line in lines
                ]
            else:
                options = console.options.update(width=max(1, width), height=None, no_wrap=False, highlight=False)
                wrapped = console.render_lines(self.text, options, style=style, pad=True, new_lines=False)
                self._strips = [Strip(line, width) for line in wrapped]
            self._strips_width, self._strips_style = width, style
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        return self.render_strips(range(y, y + 1))[0]

    def render_strips(self, ys: range) -> list[Strip]:
        # The content width once per call: working it out looks the widget up on the screen.
        width = self.content_region.width
        lines = self._lines(width)
        blank = self._blank
        if blank is None or blank.cell_length != width:
            blank = self._blank = Strip.blank(width, self.base_style)
        count = len(lines)
        return [lines[y] if y < count else blank for y in ys]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips = None
        self._blank = None

    def on_resize(self) -> None:
        self._strips = None
