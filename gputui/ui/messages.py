"""Messages from the polling worker to the app."""

from __future__ import annotations

from textual.message import Message

from gputui.core.model import ClusterSnapshot


class SnapshotPolled(Message):
    """A poll finished; ``generation`` lets the app drop results older than a replay control."""

    def __init__(self, snapshot: ClusterSnapshot, generation: int) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.generation = generation


class PollFailed(Message):
    """A poll raised a user-level error (source gone, file damaged): shown, and polling goes on."""

    def __init__(self, error: str, generation: int) -> None:
        super().__init__()
        self.error = error
        self.generation = generation
