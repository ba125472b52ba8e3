"""A yes/no confirmation whose focus starts on "No", so that an absent-minded Enter changes nothing."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from gputui.core.plain_text import sanitise_block


class ConfirmDialog(ModalScreen[bool]):
    """Asks one question; dismisses with True only for the "yes" button (or y)."""

    BINDINGS = [
        Binding("escape", "answer(False)", "No"),
        Binding("n", "answer(False)", "No", show=False),
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    def __init__(self, title: str, body: Text | str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__(classes="dialog")
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            body = self._body if isinstance(self._body, Text) else Text(sanitise_block(self._body))
            yield Static(body, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(self._no, id="confirm-no", variant="primary")
                yield Button(self._yes, id="confirm-yes", variant="error")
            yield Static(Text("y / n · Esc: no", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
