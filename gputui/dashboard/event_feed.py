"""The event feed every view's event log draws from: recorded events, job events and marks, numbered, in time order.

A replay's own events (its recorded jobs and MPS daemons) are told apart from the job queue's: a recorded job is
history, shown read-only and marked, never one the queue can cancel. Events arrive from two places (the replay
as it plays, the queue's store at each tick); one that is older than the newest shown goes to its place in time,
and ``rewrites`` counts such inserts so that a log drawn from the feed knows to draw it again.
"""

from __future__ import annotations

from gputui.core.model import Event

FEED_LIMIT = 500


class EventFeed:
    """The last FEED_LIMIT entries (events, or marks such as '↶ back to 12:00:00'), numbered from 1."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, Event | str]] = []
        self.count = 0
        self.rewrites = 0  # entries put before others already there (a log must draw the feed again)
        self.recorded: set[int] = set()  # numbers of entries that came from the replay, not from the queue
        self._times: list[float] = []  # each entry's time (a mark takes the time of the entry before it)

    def add(self, events: list[Event], *, recorded: bool = False) -> None:
        for e in sorted(events, key=lambda e: e.timestamp):
            self.count += 1
            if recorded:
                self.recorded.add(self.count)
            at = len(self._times)
            while at > 0 and self._times[at - 1] > e.timestamp:
                at -= 1
            if at < len(self._times):
                self.rewrites += 1
            self.entries.insert(at, (self.count, e))
            self._times.insert(at, e.timestamp)
        self._trim()

    def mark(self, text: str) -> None:
        self.count += 1
        self.entries.append((self.count, text))
        self._times.append(self._times[-1] if self._times else 0.0)
        self._trim()

    def _trim(self) -> None:
        extra = len(self.entries) - FEED_LIMIT
        if extra > 0:
            for n, _ in self.entries[:extra]:
                self.recorded.discard(n)
            del self.entries[:extra], self._times[:extra]

    def is_recorded(self, n: int) -> bool:
        return n in self.recorded

    @property
    def events(self) -> list[Event]:
        return [e for _, e in self.entries if isinstance(e, Event)]
