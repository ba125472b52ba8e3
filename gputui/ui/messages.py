"""Messages from the worker threads (polling, history refill, job-service calls) to the app."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.message import Message

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot

if TYPE_CHECKING:
    from gputui.dashboard.history import Sample
    from gputui.dashboard.job_ticks import JobsTick
    from gputui.jobs.backend import JobBackend


class SnapshotPolled(Message):
    """A poll finished; ``generation`` lets the app drop results older than a replay control."""

    def __init__(
        self,
        snapshot: ClusterSnapshot,
        generation: int,
        tick: JobsTick | None = None,
    ) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.generation = generation
        self.tick = tick  # the job service's pass on this snapshot (``snapshot`` then has its jobs drawn in)


class PollFailed(Message):
    """A poll raised a user-level error (source gone, file damaged): shown, and polling goes on."""

    def __init__(self, error: str, generation: int) -> None:
        super().__init__()
        self.error = error
        self.generation = generation


class HistoryFilled(Message):
    """The minutes before a replay's new position, read from the recording after a jump or a seek."""

    def __init__(self, rings: dict[str, deque[Sample]], latest: float | None, generation: int) -> None:
        super().__init__()
        self.rings = rings
        self.latest = latest
        self.generation = generation


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
