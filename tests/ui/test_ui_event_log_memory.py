"""What an event log holds grows by its lines' text, not by the Strips made to draw them: a line is kept as its
segments (LogLine), and only the lines drawn lately are cached, a few screens of them, however far the log is
scrolled. (A log kept Textual Strips, each with seven caches and the crops cached on it: about 8 KiB a line more,
4 MiB for a full log of 500 lines in each view.)"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from gputui.ui.widgets.event_log import CACHED_SCREENS, LogLine, TextLog


class _LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TextLog(max_lines=300, id="log")


def _line(i: int) -> Text:
    t = Text(f"12:{i // 60:02d}:{i % 60:02d} ", style="dim")
    t.append("job_started   ", style="bold cyan")
    t.append(f"job {48000 + i} started on node0{i % 4} GPU {i % 8}")
    return t


async def test_lines_are_kept_as_segments_and_the_drawn_ones_cached_within_a_few_screens() -> None:
    app = _LogApp()
    async with app.run_test(size=(100, 12)) as pilot:
        log = app.query_one(TextLog)
        for i in range(400):
            log.write(_line(i))
            if i % 25 == 0:
                await pilot.pause()
        await pilot.pause()
        assert len(log.lines) == 300 and all(type(line) is LogLine for line in log.lines)
        assert log.lines[-1].text.rstrip() == _line(399).plain
        bound = CACHED_SCREENS * max(log.size.height, 8) + 1
        for y in range(0, log.max_scroll_y + 1, 5):  # the whole log scrolled through, top to bottom
            log.scroll_to(y=y, animate=False, immediate=True)
            await pilot.pause()
            assert len(log._line_cache) <= bound
        log.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        drawn = [line.text for line in (log.render_line(y) for y in range(log.size.height))]
        assert drawn[-1].rstrip() == _line(399).plain  # at the bottom: the newest line, drawn from its segments


async def test_a_line_wider_than_the_log_scrolls_sideways_and_draws_the_same_after_the_cache_is_emptied() -> None:
    app = _LogApp()
    async with app.run_test(size=(40, 8)) as pilot:
        log = app.query_one(TextLog)
        for i in range(30):
            log.write(_line(i))
        await pilot.pause()
        before = [log.render_line(y).text for y in range(log.size.height)]
        log._line_cache.clear()
        assert [log.render_line(y).text for y in range(log.size.height)] == before
        log.scroll_to(x=10, animate=False, immediate=True)
        await pilot.pause()
        shifted = [log.render_line(y).text for y in range(log.size.height)]
        assert shifted != before and all(len(s) == len(b) for s, b in zip(shifted, before, strict=True))
