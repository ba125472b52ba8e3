"""Messages from the worker threads (the feed, the job service) to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

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
