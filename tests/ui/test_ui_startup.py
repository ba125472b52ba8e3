"""Start-up: the first poll is in the first paint, the later styles are read after the first frame (or before a
view that needs them), and the collector paused for start-up runs again after the first frame."""

from __future__ import annotations

import gc
import threading

import pytest
from list_source import ListSource
from test_ui_sample_data import cluster

from gputui.core.model import ClusterSnapshot
from gputui.resources import themes_dir
from gputui.ui import GputuiApp, create_app
from gputui.ui.collector import collector_paused
from gputui.ui.screens.overview_screen import OverviewScreen
from gputui.ui.widgets.overview import OverviewTable

SIZE = (160, 50)


class GatedSource(ListSource):
    """Its polls wait until ``gate`` is set (a source that has not answered yet)."""

    def __init__(self, snaps: list[ClusterSnapshot]) -> None:
        super().__init__(snaps)
        self.gate = threading.Event()

    def poll(self) -> ClusterSnapshot:
        self.gate.wait(10)
        return super().poll()


def later_css_read(app: GputuiApp) -> bool:
    return all(app.stylesheet.has_source(str(themes_dir() / name), "") for name in app.LATER_CSS)


async def test_the_first_paint_shows_the_first_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    painted_with: list[int] = []
    paint = OverviewScreen._compositor_refresh

    def spy(screen: OverviewScreen) -> None:
        painted_with.append(screen.query_one(OverviewTable).row_count)
        paint(screen)

    monkeypatch.setattr(OverviewScreen, "_compositor_refresh", spy)
    app = create_app(ListSource([cluster()]), poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_for_polls()
        await pilot.pause()
        assert painted_with and painted_with[0] == 6  # never an empty overview first
        assert later_css_read(app)


async def test_a_slow_first_poll_is_drawn_when_it_comes_and_a_view_opened_before_has_its_styles() -> None:
    source = GatedSource([cluster()])
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.state.snapshot is None and not later_css_read(app)
        await pilot.press("4")  # the jobs view, before any frame: its styles are read first
        assert later_css_read(app)
        await pilot.press("1")
        source.gate.set()
        await app.wait_for_polls()
        await pilot.pause()
        assert app.query_one(OverviewTable).row_count == 6


async def test_the_collector_paused_for_start_up_runs_after_the_first_frame() -> None:
    with collector_paused():
        app = create_app(ListSource([cluster()]), poll_interval=60)
        async with app.run_test(size=SIZE) as pilot:
            await app.wait_for_polls()
            await pilot.pause()
            assert gc.isenabled()
