"""The feed's first poll held for the shell's first frame (Feed.start(hold_first=True), Feed.take_first)."""

from __future__ import annotations

import threading

from list_source import ListSource

from gputui.core.model import ClusterSnapshot
from gputui.dashboard.feed import Feed, FeedResult, Polled


def demo_cluster_snapshot() -> ClusterSnapshot:
    return ClusterSnapshot(1_700_000_000.0, source="test")


class _Gate(ListSource):
    """A source whose polls wait until ``gate`` is set."""

    def __init__(self) -> None:
        super().__init__([demo_cluster_snapshot()])
        self.gate = threading.Event()

    def poll(self):  # type: ignore[no-untyped-def]
        self.gate.wait(5)
        return super().poll()


def _feed(source: ListSource) -> tuple[Feed, list[FeedResult], threading.Event]:
    got: list[FeedResult] = []
    arrived = threading.Event()

    def deliver(result: FeedResult) -> None:
        got.append(result)
        arrived.set()

    return Feed(source, deliver, poll_interval=60), got, arrived


def test_the_first_result_is_held_for_take_first_and_later_ones_delivered() -> None:
    source = ListSource([demo_cluster_snapshot()])
    feed, got, arrived = _feed(source)
    feed.start(hold_first=True)
    try:
        first = feed.take_first(5)
        assert isinstance(first, Polled) and first.snapshot == source.snaps[0]
        assert got == []  # held, not delivered
        assert feed.take_first(0) is None  # taken once
        feed.schedule(0)
        assert arrived.wait(5) and len(got) == 1 and isinstance(got[0], Polled)
    finally:
        feed.stop()


def test_a_first_poll_slower_than_the_wait_is_delivered_when_it_comes() -> None:
    source = _Gate()
    feed, got, arrived = _feed(source)
    feed.start(hold_first=True)
    try:
        assert feed.take_first(0.01) is None
        source.gate.set()
        assert arrived.wait(5) and len(got) == 1 and isinstance(got[0], Polled)
        assert feed.take_first(0) is None
    finally:
        feed.stop()


def test_without_hold_first_every_result_is_delivered() -> None:
    source = ListSource([demo_cluster_snapshot()])
    feed, got, arrived = _feed(source)
    feed.start()
    try:
        assert arrived.wait(5) and len(got) == 1
        assert feed.take_first(0) is None
    finally:
        feed.stop()
