"""SVG snapshots of the main views on the bundled demo recording, at 160x50 and 80x24.

The replay stays paused on a fixed frame (three minutes in) and nothing on screen reads the wall
clock (the top bar has no clock; times are the recording's), so the pictures are deterministic.
Update them with ``pytest tests/ui/test_ui_snapshots.py --snapshot-update`` and look at the result.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.sources.replay import ReplaySource
from gputui.ui import GputuiApp, create_app

DEMO = demo_recording()
THREE_MINUTES_IN = ("right_square_bracket",) * 3  # frame 181 of 601
NODE03_GPU0 = ("down",) * 6  # an H100 split into four MIG instances

pytestmark = pytest.mark.skipif(not DEMO.exists(), reason="the demo recording is not built")


@pytest.fixture
def demo_app(tmp_path: Path) -> Any:
    """A factory of dashboards on the demo recording, paused; their recordings are closed afterwards."""
    sources: list[ReplaySource] = []

    def make() -> GputuiApp:
        source = ReplaySource(RecordingReader(DEMO), "bundled demo recording (synthetic)")
        sources.append(source)
        # No user themes: a developer's own theme folder must not change the pictures.
        return create_app(source, poll_interval=3600, themes_path=tmp_path / "no-themes")

    yield make
    for source in sources:
        source.close()


def keys(*presses: str) -> Callable[[Pilot[None]], Any]:
    """run_before for snap_compare: wait for the first poll, press the keys, wait for the work they start."""

    async def run(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, GputuiApp)
        await app.wait_for_polls()
        await pilot.pause()
        for key in presses:
            await pilot.press(key)
            await app.workers.wait_for_complete()  # the history of a replay is read again after a jump
            await pilot.pause()

    return run


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
@pytest.mark.parametrize(
    "view",
    [(), ("2",), ("3",)],
    ids=["overview", "detail", "history"],
)
def test_main_views(snap_compare: Any, demo_app: Any, view: tuple[str, ...], size: tuple[int, int]) -> None:
    run = keys(*THREE_MINUTES_IN, *NODE03_GPU0, *view)
    assert snap_compare(demo_app(), terminal_size=size, run_before=run)


def test_jobs_view_without_a_queue(snap_compare: Any, demo_app: Any) -> None:
    assert snap_compare(demo_app(), terminal_size=(160, 50), run_before=keys(*THREE_MINUTES_IN, "4"))


def test_help(snap_compare: Any, demo_app: Any) -> None:
    assert snap_compare(demo_app(), terminal_size=(160, 50), run_before=keys("question_mark"))


def test_overview_filtered_by_user(snap_compare: Any, demo_app: Any) -> None:
    run = keys(*THREE_MINUTES_IN, "slash", *"bob", "enter")
    assert snap_compare(demo_app(), terminal_size=(160, 50), run_before=run)
