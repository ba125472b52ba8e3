"""Recording a replay in the real dashboard (create_app with --record) keeps the replay's own events, and the
event log keeps every event in time order with the recorded jobs marked."""

from __future__ import annotations

from pathlib import Path

from test_ui_jobs_dashboard import INTERVAL, SIZE, until

from gputui.cli.source_factory import open_source
from gputui.core.model import Event
from gputui.dashboard.event_feed import EventFeed
from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.ui import create_app
from gputui.ui.widgets.event_log import render_event


async def test_recording_a_replay_keeps_its_events(tmp_path: Path) -> None:
    opened = open_source("demo")
    source = opened.source
    out = tmp_path / "session.gtrec"
    app = create_app(source, poll_interval=INTERVAL, themes_path=tmp_path / "none", record=str(out))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.feed.poll_count >= 1)
            await pilot.press("g", *"+60s", "enter")
            await until(
                pilot, lambda: app.state.snapshot is not None and app.state.snapshot.timestamp >= source.start_time + 60
            )
            await pilot.pause(0.2)
            app.exit()
    finally:
        source.close()
    got = RecordingReader(out).events
    demo = RecordingReader(demo_recording())
    want = [e for e in demo.events if e.timestamp <= source.start_time + 60]
    assert want and [(e.timestamp, e.kind, e.message) for e in got] == [(e.timestamp, e.kind, e.message) for e in want]


def test_the_feed_keeps_time_order_and_tells_recorded_jobs_apart() -> None:
    feed = EventFeed()
    feed.add([Event(100.0, "job_started", "48226 started on node04 GPU 0")], recorded=True)
    feed.add([Event(300.0, "job_started", "job 1 started on node01:3")])
    assert feed.rewrites == 0
    feed.add([Event(200.0, "job_ended", "48226 ended")], recorded=True)  # older than the newest: goes to its place
    assert [e.timestamp for e in feed.events] == [100.0, 200.0, 300.0] and feed.rewrites == 1
    (n1, first), _, (n3, last) = feed.entries
    assert "(recorded job: read-only)" in render_event(first, recorded=feed.is_recorded(n1)).plain  # type: ignore[arg-type]
    assert "recorded" not in render_event(last, recorded=feed.is_recorded(n3)).plain  # type: ignore[arg-type]
