"""The one-line bars at the top and the bottom of every view: title and view tabs, and the keys.

Both are plain one-line widgets drawn from Rich Text, with clicks mapped to the item under the
mouse. Textual's Header and Footer would do, but the Footer rebuilds a widget per key whenever
focus moves and the Header keeps a clock; these draw once and change only when their text does.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from gputui.render.cells import cell_len
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.one_line import OneLine


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
        start = cell_len(t.plain)
        key_style = p.key_active if item.active else p.key
        t.append(f" {item.key} ", style=key_style)
        t.append(f"{item.title} ", style=p.bar_active if item.active else p.bar_text)
        ranges.append((start, cell_len(t.plain), item.action))
    return t, ranges


class ClickBar(OneLine, Widget):
    """A one-line bar of items; a click on an item posts ``Clicked`` with its action (drawn as one cached
    strip, see render/one_line.py)."""

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
            self.forget_line()
            self.refresh()

    def shown_items(self, width: int) -> list[BarItem]:
        """The items drawn in ``width`` cells (all of them here; the key bar drops what does not fit)."""
        return self.items

    def _bar_text(self, width: int) -> Text:
        """The bar's text for ``width`` cells: items on the left, the tail pushed to the right edge."""
        text, self._ranges = _layout(self.shown_items(width), self.palette, self.head())
        tail = self.tail()
        if tail is not None and cell_len(tail.plain):
            room = width - cell_len(text.plain) - cell_len(tail.plain)
            if room > 0:
                text.append(" " * room)
                text.append_text(tail)
        return text

    def render(self) -> Text:
        return self._text

    def line_text(self, width: int) -> Text:
        self._text = self._bar_text(width)  # its item ranges too, for clicks
        return self._text.copy()

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
