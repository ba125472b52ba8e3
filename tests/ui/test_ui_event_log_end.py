"""The event log keeps its newest line in sight when it gets shorter after lines were written (at 80 columns the
narrow layout makes it two lines high only after the first resize)."""

from __future__ import annotations

from pathlib import Path

from ui_demo import demo_dashboard, press_each

from gputui.ui.widgets.event_log import EventLog


async def test_the_newest_event_is_in_sight_in_a_narrow_terminal(tmp_path: Path) -> None:
    async with demo_dashboard(tmp_path, (80, 24)) as (app, pilot, _source):
        # three minutes in: many events; the detail view
        await press_each(app, pilot, *("right_square_bracket",) * 3, "2")
        log = app.screen.query_one(EventLog)
        assert log.size.height == 2 and len(log.lines) > log.size.height
        assert log.max_scroll_y == len(log.lines) - log.size.height
        assert log.scroll_y == log.max_scroll_y  # the newest line is the bottom one shown
        assert log.shown[-1].message in log.lines[-1].text
