"""The help screen, generated from the action registry so that it always matches the key bindings."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gputui.dashboard.actions import ActionSpec


def keys_text(spec: ActionSpec, display: dict[str, str]) -> str:
    """'[ / shift+←' for an action's keys, '(palette)' when it has none."""
    if not spec.keys:
        return "(palette)"
    return " / ".join(display.get(k, k) for k in spec.keys)


def help_table(groups: dict[str, list[ActionSpec]], display: dict[str, str]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column()
    for group, specs in groups.items():
        table.add_row(Text(group, style="bold underline"), "")
        for spec in specs:
            table.add_row(keys_text(spec, display), spec.help or spec.title)
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    """Every action the user may run now, grouped, with its keys."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", show=True),
        Binding("question_mark", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, groups: dict[str, list[ActionSpec]], display: dict[str, str], note: str = "") -> None:
        super().__init__(id="help")
        self._groups = groups
        self._display = display
        self._note = note

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(Text("gputui keys", style="bold"), id="help-title")
            yield Static(help_table(self._groups, self._display), id="help-table")
            if self._note:
                yield Static(Text(self._note, style="italic"), id="help-note")
            yield Static(Text("Press escape or ? to close.", style="dim"), id="help-close")
