"""Pilot tests of the dashboard: overview, detail, cursor, N/A and lost GPUs, polling, help, themes, readonly."""

from __future__ import annotations

import io
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from list_source import ListSource
from rich.console import Console
from test_ui_sample_data import EVENTS, T0, cluster, frames, replay
from textual.pilot import Pilot
from textual.widgets import Static

from gputui.core.clock import ManualClock
from gputui.core.errors import GputuiError, SourceError
from gputui.core.model import ClusterSnapshot
from gputui.dashboard.actions import DEFAULT_ACTIONS, ActionSpec
from gputui.sources.base import MemoryFrames
from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.sources.replay import ReplaySource
from gputui.ui import GputuiApp, create_app
from gputui.ui.commands import ActionCommands
from gputui.ui.screens.help_screen import HelpScreen
from gputui.ui.widgets.detail import DetailPane
from gputui.ui.widgets.event_log import EventLog
from gputui.ui.widgets.overview import OverviewTable
from gputui.ui.widgets.process_table import ProcessTable

SIZE = (160, 50)


async def settle(app: GputuiApp, pilot: Pilot[None]) -> None:
    """Let every poll in flight (and the history reading it may start) finish and its messages be handled."""
    await app.wait_for_polls()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def plain(renderable: object) -> str:
    console = Console(width=150, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def row_text(app: GputuiApp, key: str) -> list[str]:
    return [c.plain for c in app.query_one(OverviewTable).get_row(key)]


async def test_overview_shows_every_gpu_of_a_written_recording(tmp_path: Path) -> None:
    path = tmp_path / "small.gtrec"
    with RecordingWriter(path) as w:
        for snap in frames(5):
            w.append(snap)
    source = ReplaySource(RecordingReader(path), "small.gtrec")
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.query_one(OverviewTable)
        expected = ["node-a/0", "node-a/1", "node-a/2", "node-a/3", "node-b/0", "node-b/1"]
        assert table.row_order == expected
        assert row_text(app, "node-a/2")[:3] == ["node-a", "2", "A100-SXM4-40GB"]
        assert row_text(app, "node-b/1")[2] == "H100 80GB HBM3"
        assert "MPS 2" in row_text(app, "node-a/2")
        assert "MIG 3" in row_text(app, "node-a/1")
        assert row_text(app, "node-a/0")[-1] == "alice"
    source.close()


async def test_na_values_render_as_na_and_a_lost_gpu_shows_its_marker() -> None:
    app = create_app(replay(3), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        na_row = row_text(app, "node-a/3")
        assert na_row[2:8] == ["N/A"] * 6  # model, util, memory, temperature, power, mode
        lost_row = app.query_one(OverviewTable).get_row("node-b/0")
        assert lost_row[3].plain == "✖ LOST"
        assert lost_row[3].style == app.palette.lost
        assert lost_row[-1].plain == "GPU lost"


async def test_compact_layout_fits_one_gpu_on_80_columns() -> None:
    one = [ClusterSnapshot(T0 + i, (cluster(T0 + i).nodes[0],)) for i in range(2)]
    one = [replace(s, nodes=(replace(s.nodes[0], gpus=s.nodes[0].gpus[:1]),)) for s in one]
    app = create_app(ReplaySource(MemoryFrames(one), "one"), poll_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.query_one(OverviewTable)
        assert [key for key, _, _ in table.columns] == [
            "node", "gpu", "util", "mem", "temp", "power", "badges", "holder",
        ]  # fmt: skip
        assert sum(width + 2 for _, _, width in table.columns) <= 80
        assert row_text(app, "node-a/0")[-1] == "alice"
        assert app.query_one(ProcessTable).row_count == 1


async def test_cursor_stays_on_its_row_across_refreshes() -> None:
    snaps = [cluster(T0), cluster(T0 + 1, util=99)]
    # The third snapshot drops node-a/1 (rows rebuilt), the fourth brings it back.
    gone = cluster(T0 + 2)
    gone = replace(gone, nodes=(replace(gone.nodes[0], gpus=gone.nodes[0].gpus[:1] + gone.nodes[0].gpus[2:]),
                                gone.nodes[1]))  # fmt: skip
    snaps += [gone, cluster(T0 + 3)]
    app = create_app(ReplaySource(MemoryFrames(snaps), "cursor"), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.query_one(OverviewTable)
        await pilot.press("down", "down", "down")
        assert table.cursor_key == "node-a/3"
        await pilot.press("right")  # next frame: cells change in place
        assert row_text(app, "node-a/0")[3].endswith("99%")
        assert table.cursor_key == "node-a/3"
        await pilot.press("right")  # a row above the cursor disappears
        assert "node-a/1" not in table.row_order
        assert table.cursor_key == "node-a/3"
        await pilot.press("right")
        assert table.cursor_key == "node-a/3"
        header = app.query_one("#gpu-header").render()
        assert "node-a · GPU 3" in str(header)


async def test_detail_pane_follows_the_cursor_and_attributes_mps_clients() -> None:
    app = create_app(replay(3), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "down")  # node-a/2: the MPS GPU
        procs = app.query_one(ProcessTable)
        assert procs.row_order == ["p901", "c4001", "c4002"]
        assert procs.get_row("c4001")[0].plain == "└ 4001"
        assert "[MPS server]" in procs.get_row("p901")[-1].plain
        mps_text = str(app.query_one("#mps").render())
        assert "130% of 100%" in mps_text and "oversubscribed" in mps_text
        await pilot.press("up")  # node-a/1: the MIG GPU
        assert procs.row_order == ["p3101", "p3102"]
        mig_text = str(app.query_one("#mig").render())
        assert "GI1 3g.20gb" in mig_text and "free" in mig_text
        await pilot.press("d")
        assert not app.query_one(DetailPane).display


async def test_replay_keys_move_position_speed_and_state() -> None:
    source = replay(181)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert source.position == 0
        await pilot.press("right")
        assert source.position == 1 and row_text(app, "node-a/0")[3].endswith("1%")
        await pilot.press("left")
        assert source.position == 0
        await pilot.press("right_square_bracket")
        assert source.position == 60
        await pilot.press("shift+right")
        assert source.position == 120
        await pilot.press("left_square_bracket")
        assert source.position == 60
        await pilot.press("shift+left")
        assert source.position == 0
        await pilot.press("plus")
        assert source.speed == 2.0
        await pilot.press("minus", "minus")
        assert source.speed == 0.5
        await pilot.press("space")
        assert source.playing
        await pilot.press("space")
        assert not source.playing
        status = app.query_one("#replay-status").render()
        assert "frame 1 / 181" in status.plain and "0.5x" in status.plain and "paused" in status.plain


async def test_seek_box_takes_clock_and_relative_times_and_reports_bad_ones() -> None:
    source = replay(181)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        assert app.focused is app.query_one("#seek")
        await pilot.press(*"12:02:30", "enter")
        assert source.position == 150
        assert app.focused is app.query_one(OverviewTable)  # focus goes back where it was
        await pilot.press("g", *"-90s", "enter")
        assert source.position == 60
        await pilot.press("g", *"soon", "enter")
        assert source.position == 60
        assert any("soon" in n.message for n in app._notifications)
        await pilot.press("g", "x", "escape")
        assert source.position == 60 and not app.query_one("#seek").display


async def test_playing_polls_advance_with_the_clock_and_events_are_shown() -> None:
    clock = ManualClock()
    source = ReplaySource(MemoryFrames(frames(181), EVENTS), "clocked", clock=clock)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        log = app.query_one(EventLog)
        assert log.shown == []
        await pilot.press("space")
        clock.advance(10)
        app.feed.schedule(0)
        await pilot.pause(0.05)
        await settle(app, pilot)
        assert source.position == 10
        assert row_text(app, "node-a/0")[3].endswith("10%")
        assert [e.kind for e in log.shown] == ["job_started"]
        await pilot.press("space", "right_square_bracket")  # pause, then one minute on: passes the MPS event
        assert [e.kind for e in log.shown] == ["job_started", "mps_stopped"]


async def test_a_slow_source_never_stacks_polls() -> None:
    release = threading.Event()

    class SlowSource(ListSource):
        def poll(self) -> ClusterSnapshot:
            snap = super().poll()
            release.wait(5)
            return snap

    source = SlowSource([cluster()])
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(3):  # timers fire while the first poll is still blocked
            app.feed.schedule(0)
            await pilot.pause(0.02)
        assert source.polls == 1
        release.set()
        await settle(app, pilot)
        assert app.feed.poll_count == 1 and app.query_one(OverviewTable).row_count == 6
        app.feed.schedule(0)  # once it has finished, the next poll does start
        await pilot.pause(0.05)
        await settle(app, pilot)
        assert source.polls == 2 and app.feed.poll_count == 2


async def test_a_failing_poll_is_reported_and_polling_goes_on() -> None:
    class Flaky(ListSource):
        def poll(self) -> ClusterSnapshot:
            snap = super().poll()
            if self.polls == 1:
                raise SourceError("node-b: connection refused")
            return snap

    source = Flaky([cluster()])
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert any("connection refused" in n.message for n in app._notifications)
        app.feed.schedule(0)
        await pilot.pause(0.05)
        await settle(app, pilot)
        assert source.polls == 2 and app.query_one(OverviewTable).row_count == 6


async def test_live_source_has_no_replay_bar_and_no_replay_keys() -> None:
    app = create_app(ListSource([cluster()]), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert not app.query("#replay")
        assert app.check_action("replay_toggle", ()) is False
        assert all(not s.replay_only for s in app.available_actions())
        await pilot.press("space", "right")  # nothing to do, nothing breaks
        assert app.query_one(OverviewTable).row_count == 6


async def test_help_is_generated_from_the_registry_and_closes() -> None:
    app = create_app(replay(3), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rendered = plain(app.screen.query_one("#help-table", Static).content)
        for spec in DEFAULT_ACTIONS:
            assert (spec.help or spec.title) in rendered
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark", "question_mark")
        assert not isinstance(app.screen, HelpScreen)


async def test_readonly_hides_mutating_actions_everywhere() -> None:
    rang: list[bool] = []
    registry = DEFAULT_ACTIONS.extended([ActionSpec("bell", "Ring", "Jobs", ("b",), "Ring the bell", mutating=True)])

    for readonly in (False, True):
        rang.clear()
        app = GputuiApp(replay(3), readonly=readonly, poll_interval=60, actions=registry)
        app.bell = lambda: rang.append(True)  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await pilot.press("b")
            assert rang == ([] if readonly else [True])
            palette_titles = [title for title, _, _ in ActionCommands(app.screen)._entries()]
            assert ("Jobs: Ring" in palette_titles) is not readonly
            shown = [b.binding.action for b in app.active_bindings.values() if b.enabled]
            assert ("bell" in shown) is not readonly
            await pilot.press("question_mark")
            text = plain(app.screen.query_one("#help-table", Static).content)
            assert ("Ring the bell" in text) is not readonly


async def test_themes_switch_and_a_bad_name_is_a_clear_error() -> None:
    with pytest.raises(GputuiError, match="unknown theme 'neon'"):
        create_app(replay(3), theme="neon")
    app = create_app(replay(3), theme="light", poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "gputui-light"
        before = app.query_one(OverviewTable).get_row("node-b/0")[3].style
        await pilot.press("t")
        await pilot.pause()
        assert app.theme == "gputui-contrast"
        after = app.query_one(OverviewTable).get_row("node-b/0")[3].style
        assert before != after and after == app.palette.lost


DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "demo-cluster.gtrec"


@pytest.mark.skipif(not DEMO.exists(), reason="the demo recording is not built yet")
async def test_demo_recording_opens_and_steps() -> None:
    source = ReplaySource(RecordingReader(DEMO), DEMO.name)
    first = source.current()
    app = create_app(source, poll_interval=60)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.query_one(OverviewTable).row_count == first.gpu_count
            await pilot.press("right_square_bracket")
            assert source.time >= first.timestamp + 59
            await pilot.press("down", "down", "down")
            assert app.query_one(DetailPane)._shown is not None
    finally:
        source.close()


async def test_mouse_click_selects_a_row_and_the_palette_runs_registry_actions() -> None:
    app = create_app(replay(5), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.click(OverviewTable, offset=(2, 3))  # line 0 is the header
        assert app.query_one(OverviewTable).cursor_key == "node-a/2"
        assert app.query_one(ProcessTable).row_order == ["p901", "c4001", "c4002"]
        await pilot.press("ctrl+p", *"seek")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is app.query_one("#seek")


async def test_many_gpus_scroll_with_the_cursor_and_keep_the_header() -> None:
    big = cluster()
    big = replace(big, nodes=tuple(replace(big.nodes[0], name=f"n{i:02d}") for i in range(10)))  # 40 GPUs
    app = create_app(ListSource([big]), poll_interval=60)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        table = app.query_one(OverviewTable)
        assert table.row_count == 40 and table.size.height < 41
        await pilot.press("end")
        assert table.cursor_key == "n09/3" and table.scroll_y > 0
        lines = [table.render_line(y).text for y in range(table.size.height)]
        assert lines[0].split()[:2] == ["Node", "GPU"]  # the header stays on top
        assert lines[-1].split()[:2] == ["n09", "3"]
        await pilot.press("pageup", "home")
        assert table.cursor_key == "n00/0" and table.scroll_y == 0
