"""A playing replay does not feed rich's cell-width cache with a new string every second.

rich measures strings through one process-wide cache of 4,096 entries (rich.cells.cached_cell_len); Textual's
Content path and rich's Text measure through it. The dashboard's changing values (the replay clock and frame
number, the detail pane's readings, the event log's lines) are measured by gputui's render/cells.py instead: fed
through rich's cache, they filled it in five minutes on the demo (11 new strings a second), and its table was
then rebuilt at twice the size, a step in the resident memory well after the history window was full."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cached_cell_len
from ui_demo import demo_dashboard, press_each

FRAMES = 60


async def test_stepping_a_minute_of_the_demo_adds_few_strings_to_richs_cell_cache(tmp_path: Path) -> None:
    async with demo_dashboard(tmp_path, (160, 50)) as (app, pilot, source):
        await press_each(app, pilot, "right_square_bracket", "2")  # a minute in (events in the log), the detail view
        cached_cell_len.cache_clear()
        await app.run_action("replay_step(1)")
        await pilot.pause()
        first = cached_cell_len.cache_info().currsize  # what one frame's drawing measures through rich
        for _ in range(FRAMES):
            await app.run_action("replay_step(1)")
            await app.workers.wait_for_complete()
            await pilot.pause()
        grown = cached_cell_len.cache_info().currsize - first
        assert source.position >= 60 + FRAMES  # the frames were stepped through and drawn
        assert grown < FRAMES, f"{grown} new strings in rich's cell cache over {FRAMES} frames"
