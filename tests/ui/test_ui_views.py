"""Pilot tests of the views (overview, detail, history, jobs), the filter, sorting, the GPU history and jobs."""

from __future__ import annotations

import pytest
from list_source import ListSource
from test_ui_app import SIZE, plain, settle
from test_ui_sample_data import T0, cluster, replay
from textual import events
from textual.widgets import Static

from gputui.dashboard.history import WINDOW_S
from gputui.ui import create_app
from gputui.ui.app import EXIT_AFTER_FIRST_FRAME
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.screens.detail_screen import DetailScreen
from gputui.ui.screens.help_screen import HelpScreen
from gputui.ui.screens.history_screen import GraphPanel, HistoryScreen, HistoryTable
from gputui.ui.screens.jobs_screen import NO_QUEUE, JobsScreen
from gputui.ui.screens.overview_screen import OverviewScreen
from gputui.ui.widgets.bars import MORE, KeyBar, TopBar
from gputui.ui.widgets.detail import DetailPane
from gputui.ui.widgets.overview import OverviewTable
from gputui.ui.widgets.process_table import ProcessTable


async def test_views_switch_by_number_keys_palette_and_tab_clicks() -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, OverviewScreen)
        await pilot.press("3")
        assert isinstance(app.screen, HistoryScreen) and app.current_mode == "history"
        await pilot.press("4")
        assert isinstance(app.screen, JobsScreen)
        await pilot.press("2")
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("1")
        assert isinstance(app.screen, OverviewScreen)
        await pilot.press("ctrl+p", *"history")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        top = app.screen.query_one(TopBar)
        jobs_tab = top.render().plain.index("4 ")
        await pilot.click(TopBar, offset=(jobs_tab + 2, 0))
        assert isinstance(app.screen, JobsScreen)
        assert "▣ gputui" in app.screen.query_one(TopBar).render().plain  # the bar: no clock, the views
        await pilot.press("question_mark")
        help_text = plain(app.screen.query_one("#help-table", Static).content)
        for line in (
            "Cluster overview: every GPU",
            "Graphs of the last minutes, per GPU",
            "The queue and running jobs",
        ):
            assert line in help_text


async def test_enter_opens_the_detail_of_the_highlighted_gpu_and_escape_comes_back() -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "down", "enter")  # node-a/2: the MPS GPU
        assert isinstance(app.screen, DetailScreen)
        assert "node-a · GPU 2" in app.screen.query_one("#gpu-header", TextPanel).text.plain
        assert app.screen.query_one(ProcessTable).row_order == ["p901", "c4001", "c4002"]
        await pilot.press("n")  # the next GPU, without leaving the view
        assert "node-a · GPU 3" in app.screen.query_one("#gpu-header", TextPanel).text.plain
        await pilot.press("right")  # replay keys work in every view, and the detail follows
        assert app.replay is not None and app.replay.position == 1
        await pilot.press("escape")
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.query_one(OverviewTable).cursor_key == "node-a/3"


async def test_filter_narrows_by_user_node_model_and_escape_clears() -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(OverviewTable)
        await pilot.press("slash", *"erin")  # a client of the MPS server on node-a/2
        assert table.row_order == ["node-a/2"]
        await pilot.press("enter")
        assert app.focused is table and app.state.filter_text == "erin"
        await pilot.press("3")  # the history view shows the same GPUs
        assert app.screen.query_one(HistoryTable).row_order == ["node-a/2"]
        await pilot.press("1", "escape")
        assert len(table.row_order) == 6 and app.state.filter_text == ""
        await pilot.press("slash", *"H100")
        assert table.row_order == ["node-b/0", "node-b/1"]
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"node-a/1")
        assert table.row_order == ["node-a/1"]
        await pilot.press("escape")  # escape in the box clears it too
        assert len(table.row_order) == 6 and not app.screen.query_one("#filter").display


async def test_sort_by_key_and_header_click_keeps_the_cursor_on_its_gpu() -> None:
    snap = cluster(util=57)
    app = create_app(ListSource([snap]), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(OverviewTable)
        await pilot.press("down", "down")
        assert table.cursor_key == "node-a/2"
        util_x = sum(w + 2 for key, _, w in table.columns[:3])  # node, gpu and model columns come first
        await pilot.click(OverviewTable, offset=(util_x + 1, 0))
        assert table.sort_column == "util" and not table.sort_reverse
        # 0 %, 57 %, 88 %; then the GPUs without a value (MIG reports none, N/A, lost) in their order.
        assert table.row_order == ["node-b/1", "node-a/0", "node-a/2", "node-a/1", "node-a/3", "node-b/0"]
        assert table.cursor_key == "node-a/2"
        assert table.render_line(0).text.split()[3:5] == ["Util", "▲"]  # the header marks the sort column
        await pilot.click(OverviewTable, offset=(util_x + 1, 0))
        assert table.row_order[:3] == ["node-a/2", "node-a/0", "node-b/1"] and table.sort_reverse
        await pilot.press("O")
        assert table.row_order[:3] == ["node-b/1", "node-a/0", "node-a/2"]
        await pilot.press("o")  # the next column: memory
        assert table.sort_column == "mem" and table.cursor_key == "node-a/2"
        procs = app.screen.query_one(ProcessTable)
        await pilot.click(ProcessTable, offset=(1, 0))  # the process table sorts by its header too
        assert procs.sort_column == "pid"


async def test_history_is_fed_by_each_frame_cut_by_a_step_back_and_refilled_after_a_jump() -> None:
    source = replay(400)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("right", "right", "right")
        assert [s.t - T0 for s in app.state.history.series("node-a/0")] == [0, 1, 2, 3]
        await pilot.press("left")
        assert [s.t - T0 for s in app.state.history.series("node-a/0")] == [0, 1, 2]
        await pilot.press(
            "right_square_bracket", "right_square_bracket", "right_square_bracket", "right_square_bracket"
        )
        await settle(app, pilot)  # the refill reads the recording in a thread
        times = [s.t - T0 for s in app.state.history.series("node-a/0")]
        assert source.position == 242 and times[-1] == 242
        assert times[0] == 242 - WINDOW_S + 1 or times[0] == 0  # a full window back (or the start)
        assert times == sorted(times) and len(times) >= 200
        utils = [s.util for s in app.state.history.series("node-a/0")]
        assert utils[-1] == 242 % 101  # the frames' own values, not copies of the current one
        await pilot.press("3")
        panel = app.screen.query_one(GraphPanel)
        assert "Utilization now 40%" in panel.text.plain
        assert "lost" not in panel.text.plain.lower()


async def test_history_view_marks_a_lost_gpu_and_na_values() -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("right", "3")
        table = app.screen.query_one(HistoryTable)
        lost = [c.plain for c in table.get_row("node-b/0")]
        assert lost[2].lstrip().startswith("✖ LOST")
        na = [c.plain for c in table.get_row("node-a/3")]
        assert na[2].split()[0] == "N/A" and "·" in na[2]  # N/A, and the marks of samples without a value


async def test_jobs_view_says_where_jobs_come_from() -> None:
    app = create_app(ListSource([cluster()]), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        assert app.screen.query_one("#jobs-note", TextPanel).text.plain == NO_QUEUE


async def test_detail_pane_labels_keep_a_space_and_lines_fit_at_80_columns() -> None:
    app = create_app(replay(3), poll_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one("#gpu-header", TextPanel)
        lines = header.text.plain.split("\n")
        assert all(len(line) <= header.size.width for line in lines)
        assert "mem 20.0/40G" in header.text.plain and "mem-bw N/A" in header.text.plain
        assert any(line.endswith("mode Default") or "mode Default  " in line for line in lines)
        await pilot.press("down", "down")
        assert "MPS daemon up" in app.screen.query_one("#mps", TextPanel).text.plain
        assert app.screen.query_one(DetailPane).display


async def test_the_startup_benchmark_hook_exits_once_the_first_frame_is_drawn(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(EXIT_AFTER_FIRST_FRAME, "1")
    app = create_app(replay(3), poll_interval=60)
    exits: list[object] = []
    real_exit = app.exit
    app.exit = lambda *a, **k: (exits.append(k.get("message")), real_exit(*a, **k))[1]  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.pause()
        assert app.feed.poll_count == 1
    assert len(exits) == 1 and "first complete frame at monotonic" in str(exits[0])


async def test_keys_typed_in_one_burst_after_slash_or_g_land_in_the_box() -> None:
    """A terminal delivers fast typing as one read: the keys after '/' or 'g' must not run actions ('+', 's')."""
    source = replay(181)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)

        async def burst(*keys: tuple[str, str | None]) -> None:
            for key, char in keys:  # all queued before any is handled
                app.post_message(events.Key(key, char))
            await pilot.pause()
            await pilot.pause()

        await burst(("g", "g"), ("plus", "+"), ("9", "9"), ("0", "0"), ("s", "s"), ("enter", "\r"))
        assert source.position == 90 and source.speed == 1.0  # '+' was text, not 'faster'
        assert app.screen.query_one(OverviewTable).sort_column is None  # 's' was text, not 'sort'
        await burst(("slash", "/"), ("g", "g"), ("p", "p"), ("u", "u"))
        assert app.state.filter_text == "gpu" and source.position == 90  # 'g' was text, not 'seek'


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
async def test_each_views_key_bar_shows_whole_keys_by_priority_and_ends_with_more(size: tuple[int, int]) -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for key, view in (("1", "overview"), ("2", "detail"), ("3", "history"), ("4", "jobs")):
            await pilot.press(key)
            await pilot.pause()
            bar = app.screen.query_one(KeyBar)
            line = "".join(seg.text for seg in bar.render_line(0)).rstrip()
            wanted = app.keymap.key_items(view)
            shown = bar.shown_items(size[0])
            assert shown[-1] == MORE and shown[:-1] == wanted[: len(shown) - 1]
            assert line == "".join(f" {i.key} {i.title} " for i in shown).rstrip()
            assert len(shown) > 4  # the most important keys, not just '? more'
        await pilot.click(KeyBar, offset=(len(line) - 3, 0))  # '? more' opens the help, which lists every key
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
async def test_notifications_never_cover_the_replay_bar(size: tuple[int, int]) -> None:
    from textual.widgets._toast import Toast

    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("a notice long enough to take a few lines of the toast " * 2, timeout=30)
        app.notify("and another one", timeout=30)
        for _ in range(50):
            await pilot.pause(0.02)
            toasts = [t for t in app.screen.query(Toast) if t.region.height]
            if len(toasts) == 2:
                break
        assert len(toasts) == 2
        bar = app.screen.query_one("#replay").region
        for toast in toasts:
            assert toast.region.height > 0 and not toast.region.overlaps(bar)
