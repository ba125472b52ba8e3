"""A controller's answers shown: a notice as a toast, a confirmation, choice or prompt as a dialog."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from gputui.core.plain_text import sanitise, sanitise_block
from gputui.dashboard.outcomes import Choice, Confirm, Notice, Pieces, Prompt


def pieces_text(pieces: Pieces) -> Text:
    """A dialog's body as plain Text: each piece sanitised (it may hold a job's name), never parsed as markup."""
    return Text.assemble(*(sanitise(p) if isinstance(p, str) else (sanitise(p[0]), *p[1:]) for p in pieces))


def notify_plain(app: App[Any], text: str, **kwargs: Any) -> None:
    """A toast whose text is shown as typed: sanitised and not parsed as Textual markup."""
    app.notify(sanitise_block(text), markup=False, **kwargs)


def say(app: App[Any], notice: Notice | None) -> None:
    if notice is not None:
        if notice.timeout is None:
            notify_plain(app, notice.text, title=notice.title, severity=notice.severity)
        else:
            notify_plain(app, notice.text, title=notice.title, severity=notice.severity, timeout=notice.timeout)


async def ask(app: App[Any], question: Confirm | Choice | Prompt) -> Any:
    """Show the dialog for ``question`` and wait for its answer (in a worker): True/False, a key, a text or None."""
    if isinstance(question, Confirm):
        from gputui.ui.dialogs.confirm_dialog import ConfirmDialog

        dialog: Any = ConfirmDialog(question.title, pieces_text(question.body), yes=question.yes, no=question.no)
    elif isinstance(question, Choice):
        from gputui.ui.dialogs.choice_dialog import ChoiceDialog

        dialog = ChoiceDialog(question.title, [(key, pieces_text(label)) for key, label in question.options])
    else:
        from gputui.ui.dialogs.prompt_dialog import PromptDialog

        dialog = PromptDialog(question.title, question.label, question.default, question.check)
    return await app.push_screen_wait(dialog)
