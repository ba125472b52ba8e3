"""A live-style test source: it returns the snapshots it is given, one per poll, then repeats the last."""

from __future__ import annotations

from gputui.core.model import ClusterSnapshot


class ListSource:
    """Returns ``snaps`` one per poll, then the last again; ``polls`` counts the polls."""

    description = "list source"

    def __init__(self, snaps: list[ClusterSnapshot]) -> None:
        self.snaps = snaps
        self.polls = 0

    def poll(self) -> ClusterSnapshot:
        self.polls += 1
        return self.snaps[min(self.polls - 1, len(self.snaps) - 1)]

    def close(self) -> None:
        pass
