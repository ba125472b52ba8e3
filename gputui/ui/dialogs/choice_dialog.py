"""Pick one of a few items (which of the jobs on a GPU to cancel): Enter picks, Escape gives up."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class ChoiceDialog(ModalScreen[str | None]):
    """Dismisses with the id of the chosen item, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, items: Sequence[tuple[str, Text | str]]) -> None:
        super().__init__(classes="dialog")
        self._title = title
        self._items = list(items)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield OptionList(*(Option(label, id=key) for key, label in self._items), id="choice-list")
            yield Static(Text("Enter: choose · Esc: cancel", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
