"""A one-line prompt (a job's new priority, the file to record into) that checks the answer as it is typed."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from gputui.core.plain_text import sanitise_block

#: Returns the problem with a typed value in one line, or None when it is fine.
Check = Callable[[str], "str | None"]


class PromptDialog(ModalScreen[str | None]):
    """Dismisses with the typed text on Enter (once ``check`` accepts it), or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, label: str, value: str = "", check: Check | None = None) -> None:
        super().__init__(classes="dialog")
        self._title = title
        self._label = label
        self._value = value
        self._check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield Static(Text(sanitise_block(self._label)), classes="dialog-body")
            yield Input(self._value, id="prompt-input", classes="compact")
            yield Static("", id="prompt-error", classes="field-error")
            yield Static(Text("Enter: OK · Esc: cancel", style="dim"), classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._show(self._problem(self._value) if self._value else None)

    def _problem(self, value: str) -> str | None:
        return self._check(value) if self._check is not None else None

    def _show(self, problem: str | None) -> None:
        err = self.query_one("#prompt-error", Static)
        err.update(Text(sanitise_block(problem or "")))
        err.display = bool(problem)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show(self._problem(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self._problem(event.value)
        self._show(problem)
        if problem is None:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
