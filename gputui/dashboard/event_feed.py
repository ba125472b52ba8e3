"""The event feed every view's event log draws from: recorded events, job events and marks, numbered."""

from __future__ import annotations

from collections import deque

from gputui.core.model import Event

FEED_LIMIT = 500


class EventFeed:
    """The last FEED_LIMIT entries (events, or marks such as '↶ back to 12:00:00'), numbered from 1."""

    def __init__(self) -> None:
        self.entries: deque[tuple[int, Event | str]] = deque(maxlen=FEED_LIMIT)
        self.count = 0

    def add(self, events: list[Event]) -> None:
        for e in events:
            self.count += 1
            self.entries.append((self.count, e))

    def mark(self, text: str) -> None:
        self.count += 1
        self.entries.append((self.count, text))

    @property
    def events(self) -> list[Event]:
        return [e for _, e in self.entries if isinstance(e, Event)]
