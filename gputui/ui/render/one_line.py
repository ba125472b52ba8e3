"""A one-line widget drawn as one cached strip (the bars at the screen's edges, the replay status line).

Textual repaints every widget placed directly on the screen with each update of any part of it, so such a line
must cost nothing to draw again: its text is laid out once per width (``line_text``), cut to the width by
render/cells.py's measure (not rich's, whose string cache would keep every clock and frame number), and kept
until the widget calls ``forget_line``, its styles change or it is resized."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from gputui.ui.render.cell_segments import cell_segments, truncate
from gputui.ui.render.direct_lines import DirectLines
from gputui.ui.render.lean_strip import LeanStrip

_PLAIN = Style()


class OneLine(DirectLines):
    """Mixin for a one-line Widget (before Widget in its bases): override ``line_text``."""

    _line: Strip | None = None

    def line_text(self, width: int) -> Text:
        """The line's text for ``width`` cells (it may be longer: it is cut); a new Text, which is changed."""
        raise NotImplementedError

    def forget_line(self) -> None:
        """What the line shows changed: lay it out again when next drawn."""
        self._line = None

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._line is None or self._line.cell_length != width:
            text = self.line_text(width)
            truncate(text, width)
            self._line = LeanStrip(cell_segments(text, width, self.base_style, _PLAIN, self.app.console, edge=0), width)
        return self._line if y == 0 else Strip.blank(width, self.base_style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line = None

    def on_resize(self) -> None:
        self._line = None
