"""The one-line bars at the top and the bottom of every view: title and view tabs, and the keys.

Both are plain one-line widgets drawn from Rich Text, with clicks mapped to the item under the
mouse. Textual's Header and Footer would do, but the Footer rebuilds a widget per key whenever
focus moves and the Header keeps a clock; these draw once and change only when their text does.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.cell_segments import cell_segments
from gputui.ui.render.direct_lines import DirectLines


@dataclass(frozen=True, slots=True)
class BarItem:
    """One clickable item: its label parts and the action it runs (an app action string)."""

    key: str  # shown highlighted: '?', '1', 'space'
    title: str
    action: str
    active: bool = False


#: The last item of every key bar: the help screen lists every key.
MORE = BarItem("?", "more", "help")


def item_cells(item: BarItem) -> int:
    """The cells one item takes in a bar: ' key title '."""
    return cell_len(item.key) + cell_len(item.title) + 3


def fit_items(items: list[BarItem], width: int, last: BarItem) -> list[BarItem]:
    """The leading ``items`` that fit whole in ``width`` cells together with ``last`` (which always ends the bar),
    in their order: the first one that does not fit ends the bar, so that a less important key never takes the
    place of a more important one. Nothing is cut: with no room even for ``last``, the bar is empty."""
    room = width - item_cells(last)
    if room < 0:
        return []
    out = []
    for item in items:
        room -= item_cells(item)
        if room < 0:
            break
        out.append(item)
    return [*out, last]


def _layout(items: list[BarItem], p: Palette, head: Text | None = None) -> tuple[Text, list[tuple[int, int, str]]]:
    """The bar's text and the cell ranges [start, end) of each item with its action."""
    t = head.copy() if head is not None else Text()
    ranges = []
    for item in items:
        start = t.cell_len
        key_style = p.key_active if item.active else p.key
        t.append(f" {item.key} ", style=key_style)
        t.append(f"{item.title} ", style=p.bar_active if item.active else p.bar_text)
        ranges.append((start, t.cell_len, item.action))
    return t, ranges


class ClickBar(DirectLines, Widget):
    """A one-line bar of items; a click on an item posts ``Clicked`` with its action.

    Drawn as one cached strip: Textual repaints every widget placed directly on the screen with
    each update of any part of it, so a bar must cost nothing to draw again.
    """

    DEFAULT_CSS = """
    ClickBar { height: 1; }
    """

    class Clicked(Message):
        """An item of a bar was clicked."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self.items: list[BarItem] = []
        self._text = Text()
        self._ranges: list[tuple[int, int, str]] = []
        self._strip: Strip | None = None

    def head(self) -> Text | None:
        return None

    def tail(self) -> Text | None:
        return None

    def show(self, items: list[BarItem], palette: Palette | None = None) -> None:
        """Draw ``items`` (and the palette's colours); repaints only when the bar's text changes."""
        if palette is not None:
            self.palette = palette
        self.items = items
        text = self._bar_text(self.size.width)
        if text.plain != self._text.plain or text.spans != self._text.spans:
            self._text = text
            self._strip = None
            self.refresh()

    def shown_items(self, width: int) -> list[BarItem]:
        """The items drawn in ``width`` cells (all of them here; the key bar drops what does not fit)."""
        return self.items

    def _bar_text(self, width: int) -> Text:
        """The bar's text for ``width`` cells: items on the left, the tail pushed to the right edge."""
        text, self._ranges = _layout(self.shown_items(width), self.palette, self.head())
        tail = self.tail()
        if tail is not None and tail.cell_len:
            room = width - text.cell_len - tail.cell_len
            if room > 0:
                text.append(" " * room)
                text.append_text(tail)
        return text

    def render(self) -> Text:
        return self._text

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._strip is None or self._strip.cell_length != width:
            self._text = self._bar_text(width)
            text = self._text.copy()
            text.truncate(width)
            self._strip = Strip(cell_segments(text, width, self.base_style, Style(), self.app.console, edge=0), width)
        return self._strip if y == 0 else Strip.blank(width, self.base_style)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip = None

    def action_at(self, x: int) -> str | None:
        for start, end, action in self._ranges:
            if start <= x < end:
                return action
        return None

    def on_click(self, event: events.Click) -> None:
        action = self.action_at(event.x)
        if action is not None:
            event.stop()
            self.post_message(self.Clicked(action))

    def on_resize(self) -> None:
        self._strip = None


class TopBar(ClickBar):
    """'▣ gputui' and the view tabs on the left, what is shown (source, GPU count, filter) on the right."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.subtitle = ""

    def head(self) -> Text:
        return Text.assemble((" ▣ gputui ", self.palette.title), " ")

    def tail(self) -> Text:
        return Text(f"{self.subtitle} ", style=self.palette.bar_text)

    def set_subtitle(self, subtitle: str) -> None:
        if subtitle != self.subtitle:
            self.subtitle = subtitle
            self.show(self.items)


class KeyBar(ClickBar):
    """The keys of the actions available in the view, from the action registry: the most important ones that fit
    whole, then ``more`` ('? more': the help screen lists every key)."""

    def __init__(self, more: BarItem = MORE, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.more = more

    def shown_items(self, width: int) -> list[BarItem]:
        return fit_items(self.items, width, self.more)
