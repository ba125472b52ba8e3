"""The '/' filter line: a text input that narrows the GPU (and job) lists as the user types."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

PLACEHOLDER = "node, GPU, model, user or job; enter keeps it, escape clears it"


class FilterBar(Horizontal):
    """Shown while a filter is typed or active; posts ``Changed`` on every edit."""

    BINDINGS = [Binding("escape", "clear", "Clear filter", show=False)]

    class Changed(Message):
        """The filter text changed ('' clears it)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._return_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        # Made with the view, not on the first '/': keys typed right after it must land in the box.
        yield Static(Text(" / ", style="bold"), id="filter-label")
        yield Input(placeholder=PLACEHOLDER, id="filter-input")

    def on_mount(self) -> None:
        self.display = False

    @property
    def input(self) -> Input:
        return self.query_one("#filter-input", Input)

    @property
    def editing(self) -> bool:
        return self.display and self.input.has_focus

    def open(self, text: str) -> None:
        """Show the bar with ``text`` and put the cursor in it."""
        box = self.input
        if not box.has_focus:
            self._return_focus = self.screen.focused
        self.display = True
        if box.value != text:
            with box.prevent(box.Changed):
                box.value = text
        box.cursor_position = len(text)
        # At once, not via Widget.focus (a callback queued after the keys already typed): the
        # characters typed right after '/' must land in the box, not in the table.
        self.screen.set_focus(box)

    def show_text(self, text: str) -> None:
        """Show ``text`` as the active filter without taking focus; hide the bar when it is empty."""
        box = self.input
        if box.value != text:
            with box.prevent(Input.Changed):
                box.value = text
        if not box.has_focus:
            self.display = bool(text)

    def _give_back_focus(self) -> None:
        back, self._return_focus = self._return_focus, None
        if back is not None and back.is_attached and back.display:
            back.focus()
        else:
            self.screen.focus_next()

    def action_clear(self) -> None:
        self.display = False
        self._give_back_focus()
        self.post_message(self.Changed(""))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.display = bool(event.value.strip())
        self._give_back_focus()
