"""The event log keeps its newest line in sight when it gets shorter after lines were written (at 80 columns the
narrow layout makes it two lines high only after the first resize)."""

from __future__ import annotations

from pathlib import Path

from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.sources.replay import ReplaySource
from gputui.ui import create_app
from gputui.ui.widgets.event_log import EventLog


async def test_the_newest_event_is_in_sight_in_a_narrow_terminal(tmp_path: Path) -> None:
    source = ReplaySource(RecordingReader(demo_recording()), "demo")
    app = create_app(source, poll_interval=3600, themes_path=tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await app.wait_for_polls()
            for key in ("right_square_bracket",) * 3 + ("2",):  # three minutes in: many events; the detail view
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
            log = app.screen.query_one(EventLog)
            assert log.size.height == 2 and len(log.lines) > log.size.height
            assert log.max_scroll_y == len(log.lines) - log.size.height
            assert log.scroll_y == log.max_scroll_y  # the newest line is the bottom one shown
            assert log.shown[-1].message in log.lines[-1].text
    finally:
        source.close()
