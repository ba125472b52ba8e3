"""The '/' filter line: a text input that narrows the GPU (and job) lists as the user types."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from gputui.ui.widgets.input_focus import FocusLending

PLACEHOLDER = "node, GPU, model, user or job; enter keeps it, escape clears it"


class FilterBar(Horizontal, FocusLending):
    """Shown while a filter is typed or active; posts ``Changed`` on every edit."""

    BINDINGS = [Binding("escape", "clear", "Clear filter", show=False)]

    class Changed(Message):
        """The filter text changed ('' clears it)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

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
        self.display = True
        if box.value != text:
            with box.prevent(box.Changed):
                box.value = text
        box.cursor_position = len(text)
        self.lend_focus_to(box)

    def show_text(self, text: str) -> None:
        """Show ``text`` as the active filter without taking focus; hide the bar when it is empty."""
        box = self.input
        if box.value != text:
            with box.prevent(Input.Changed):
                box.value = text
        if not box.has_focus:
            self.display = bool(text)

    def action_clear(self) -> None:
        self.display = False
        self.give_back_focus()
        self.post_message(self.Changed(""))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.display = bool(event.value.strip())
        self.give_back_focus()
