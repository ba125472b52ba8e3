"""Messages from the worker threads (the feed, the job service) to the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.message import Message

from gputui.core.errors import GputuiError

if TYPE_CHECKING:
    from gputui.dashboard.feed import FeedResult
    from gputui.jobs.backend import JobBackend


class Fed(Message):
    """The feed's poll thread delivered a result: a frame, a failed poll, or a replay's history read again."""

    def __init__(self, result: FeedResult) -> None:
        super().__init__()
        self.result = result


class JobsOpened(Message):
    """The job service that opens after the first frame is open (``service``), or could not open (``note`` says why)."""

    def __init__(self, service: JobBackend | None, note: str | None) -> None:
        super().__init__()
        self.service = service
        self.note = note


class JobCallDone(Message):
    """A job-service call made in a thread worker finished; ``then`` runs on the event loop with its outcome."""

    def __init__(self, then: Callable[[Any, GputuiError | None], None], result: Any, error: GputuiError | None) -> None:
        super().__init__()
        self.then = then
        self.result = result
        self.error = error
