"""Replay controls on an injected clock: step, seek, jump, play at a speed, pause, events."""

from __future__ import annotations

from pathlib import Path

import pytest
from recording_helpers import T0, frames

from gputui.core.clock import ManualClock
from gputui.core.errors import GputuiError
from gputui.core.model import Event
from gputui.sources.base import MemoryFrames
from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.sources.replay import ReplaySource


@pytest.fixture(params=["memory", "file"])
def replay(request, tmp_path: Path) -> ReplaySource:  # type: ignore[no-untyped-def]
    snaps = frames(300)
    evs = [Event(T0 + 10, "job_started", "job 1"), Event(T0 + 20, "job_ended", "job 1")]
    if request.param == "memory":
        store = MemoryFrames(snaps, evs)
    else:
        with RecordingWriter(tmp_path / "r.gtrec", keyframe_interval=50) as w:
            for s in snaps:
                w.append(s)
            for e in evs:
                w.add_event(e)
        store = RecordingReader(tmp_path / "r.gtrec")
    return ReplaySource(store, "test", ManualClock(100.0))


def test_starts_paused_on_the_first_frame(replay: ReplaySource) -> None:
    assert not replay.playing and replay.position == 0
    assert replay.poll().timestamp == T0
    replay.clock.advance(50)  # type: ignore[attr-defined]
    assert replay.poll().timestamp == T0  # paused: time does not move


def test_step_and_bounds(replay: ReplaySource) -> None:
    assert replay.step(3).timestamp == T0 + 3
    assert replay.step(-1).timestamp == T0 + 2
    assert replay.step(-10).timestamp == T0
    assert replay.step(10_000).timestamp == T0 + 299 and replay.at_end


def test_seek_and_jump(replay: ReplaySource) -> None:
    assert replay.seek(T0 + 123.5).timestamp == T0 + 123
    assert replay.jump(60).timestamp == T0 + 183
    assert replay.jump(-60).timestamp == T0 + 123
    assert replay.seek(T0 - 5).timestamp == T0
    assert replay.seek(T0 + 10**6).timestamp == T0 + 299


def test_play_follows_the_clock_at_speed_and_stops_at_the_end(replay: ReplaySource) -> None:
    clock: ManualClock = replay.clock  # type: ignore[assignment]
    replay.play(2.0)
    clock.advance(10)
    assert replay.poll().timestamp == T0 + 20
    replay.set_speed(60)
    clock.advance(2)
    assert replay.poll().timestamp == T0 + 140
    replay.pause()
    clock.advance(100)
    assert replay.poll().timestamp == T0 + 140
    replay.play()
    clock.advance(10)
    assert replay.poll().timestamp == T0 + 299 and not replay.playing


def test_speed_limits_and_steps(replay: ReplaySource) -> None:
    for bad in (0.25, 61, 0):
        with pytest.raises(GputuiError, match="outside 0.5x to 60x"):
            replay.set_speed(bad)
    replay.set_speed(0.5)
    assert replay.slower() == 0.5
    assert [replay.faster() for _ in range(7)] == [1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 60.0]


def test_events_between(replay: ReplaySource) -> None:
    assert [e.message for e in replay.events_between(T0, T0 + 10)] == ["job 1"]
    assert replay.events_between(T0 + 10, T0 + 19) == []
    assert len(replay.events_until(T0 + 30)) == 2
