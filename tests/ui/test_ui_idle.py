"""The idle radar in the real dashboard (create_app) on the idle fixture recording: the overview's marks, the Idle
view (rows, sorting, Enter to the GPU), the radar following a replay frame by frame, and SVG snapshots."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from textual.pilot import Pilot

from gputui.cli.source_factory import open_source
from gputui.ui import GputuiApp, create_app
from gputui.ui.screens.idle_screen import IdleScreen
from gputui.ui.widgets.idle_table import IdleTable
from gputui.ui.widgets.overview import OverviewTable

IDLE = FIXTURES / "recording" / "idle-held.gtrec"
TO_END = ("g", *"end", "enter")
SIZES = pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])


@pytest.fixture
def idle_app(tmp_path: Path) -> Iterator[Callable[..., GputuiApp]]:
    opened: list[Any] = []

    def make(**kw: Any) -> GputuiApp:
        source = open_source(str(IDLE)).source
        opened.append(source)
        return create_app(source, poll_interval=3600, themes_path=tmp_path / "no-themes", **kw)

    yield make
    for source in opened:
        source.close()


async def settle(app: GputuiApp, pilot: Pilot[None]) -> None:
    for _ in range(2):  # a jump polls again, then reads the history and primes the radar in a worker
        await pilot.pause()
        await app.wait_for_polls()
        await app.workers.wait_for_complete()
        await pilot.pause()


def keys(*presses: str, then: tuple[str, ...] = ()) -> Callable[[Pilot[None]], Any]:
    """Press ``presses``, let the work they start finish, then press ``then`` (a view opened once a jump's history
    is read: opened before it, its cursor would stay on the row it first had, wherever the primed radar puts it)."""

    async def run(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, GputuiApp)
        await settle(app, pilot)
        await pilot.press(*presses)
        await settle(app, pilot)
        if then:
            await pilot.press(*then)
            await settle(app, pilot)

    return run


def _cells(table: Any, key: str) -> list[str]:
    return [c.plain for c in table.get_row(key)]


async def test_the_overview_marks_the_idle_gpus_and_the_filter_finds_them(idle_app: Any) -> None:
    app = idle_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await keys(*TO_END)(pilot)
        assert app.state.idle_by_gpu == {"gpu01/1": "idle 14m", "gpu01/2": "idle 15m", "gpu02/1": "idle 14m"}
        table = app.screen.query_one(OverviewTable)
        assert _cells(table, "gpu01/1")[-1].startswith("idle 14m bob")
        assert not _cells(table, "gpu01/0")[-1].startswith("idle")  # alice's training is busy
        await pilot.press("slash", *"idle", "enter")
        await settle(app, pilot)
        assert table.row_order == ["gpu01/1", "gpu01/2", "gpu02/1"]


async def test_the_idle_view_lists_sorts_and_opens_the_gpu(idle_app: Any) -> None:
    app = idle_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await keys(*TO_END, "5")(pilot)
        assert isinstance(app.screen, IdleScreen)
        table = app.screen.query_one(IdleTable)
        assert table.row_order == ["gpu01/1/gpu/", "gpu01/2/gpu/", "gpu02/1/mps/51004", "gpu02/0/mig/2"]
        bob = _cells(table, "gpu01/1/gpu/")
        assert bob[:6] == ["gpu01", "1", "51002 python train_llm.py --config big.yaml", "bob", "09:00:30", "14m"]
        assert bob[6:] == ["20.0 GiB", "max 4 %"]
        assert _cells(table, "gpu02/0/mig/2")[5] == "unknown"  # MIG reports no utilisation: never called idle
        await pilot.press(*"o" * 7)  # node, GPU, job, user, held since, idle for, memory
        assert table.sort_column == "memory"
        assert table.row_order[0] == "gpu02/1/mps/51004"
        await pilot.press("O")
        assert table.row_order[0] == "gpu02/0/mig/2"
        await pilot.press("end", "enter")  # the smallest: the MPS share on gpu02's GPU 1
        await settle(app, pilot)
        assert app.current_mode == "detail" and app.state.selected_key == "gpu02/1"


async def test_the_radar_follows_the_replay_frame_by_frame(idle_app: Any) -> None:
    app = idle_app(idle_radar=(5, 30.0))  # a 30 s window: the notebook is idle from the first frame
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press(*["right"] * 29)
        await settle(app, pilot)
        assert app.state.idle_by_gpu == {}
        await pilot.press("right")  # frame 30: the first frame a full window after the first
        await settle(app, pilot)
        assert app.state.idle_by_gpu == {"gpu01/2": "idle 30s"}
        assert app.state.radar.last is not None and app.state.radar.last.timestamp == app.replay.time


async def test_a_replay_opened_part_way_reads_what_came_before(tmp_path: Path) -> None:
    source = open_source(str(IDLE)).source
    source.seek(source.end_time)  # as a replay whose queue's clock is there opens
    app = create_app(source, poll_interval=3600, themes_path=tmp_path / "no-themes")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert set(app.state.idle_by_gpu) == {"gpu01/1", "gpu01/2", "gpu02/1"}
            assert len(app.state.history.series("gpu01/0")) > 1  # the history before it too
    finally:
        source.close()


@SIZES
@pytest.mark.parametrize("view", ["overview", "idle"])
def test_snapshots(snap_compare: Any, idle_app: Any, view: str, size: tuple[int, int]) -> None:
    then = () if view == "overview" else ("5",)
    assert snap_compare(idle_app(), terminal_size=size, run_before=keys(*TO_END, then=then))
