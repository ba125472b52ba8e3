"""SVG snapshots of every view and of the submit dialog, on the real dashboard (create_app) with the bundled demo
and its job queue, at 160x50 and 80x24, the key bar in each.

The replay stays paused on a fixed frame (three minutes in) and nothing on screen reads the wall clock (the top
bar has no clock; times are the recording's and the queue's, which lives on the replay's timeline), so the
pictures are deterministic. Update them with ``pytest tests/ui/test_ui_snapshots.py --snapshot-update`` and look
at the result (as PNGs: /work/shared/tools/tui-shot.py shows the same screens in a real terminal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jobs_helpers import ALICE
from textual.pilot import Pilot
from textual.widgets import Input

from gputui.cli.job_session import open_service
from gputui.cli.source_factory import open_source
from gputui.resources import demo_recording
from gputui.ui import GputuiApp, create_app

DEMO = demo_recording()
THREE_MINUTES_IN = ("g", *"+3m", "enter")  # frame 181 of 601, in one seek (one reading of the history)
NODE03_GPU0 = ("down",) * 6  # an H100 split into four MIG instances
NODE04_GPU0 = ("down",) * 8  # an A100 with an MPS daemon and two clients
SIZES = pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
#: view -> the keys that show it (after the first frame)
VIEWS: dict[str, tuple[str, ...]] = {
    "overview": (*THREE_MINUTES_IN, *NODE03_GPU0),
    "detail": (*THREE_MINUTES_IN, "2"),
    "mig": (*THREE_MINUTES_IN, *NODE03_GPU0, "2"),
    "mps": (*THREE_MINUTES_IN, *NODE04_GPU0, "2"),
    "history": (*THREE_MINUTES_IN, *NODE03_GPU0, "3"),
    "jobs": (*THREE_MINUTES_IN, "4", "down"),  # the MIG job's detail
    "idle": (*THREE_MINUTES_IN, "5"),  # nothing idle three minutes in; the MIG instances have no reading
    "help": ("question_mark",),
    "submit": (*THREE_MINUTES_IN, "4", "s", *"train", "tab", "tab", "2"),
}

pytestmark = pytest.mark.skipif(not DEMO.exists(), reason="the demo recording is not built")


@pytest.fixture
def demo_app(tmp_path: Path) -> Iterator[Callable[[], GputuiApp]]:
    """A factory of dashboards on the demo recording (paused) with a job queue (``keys`` submits the jobs)."""
    opened: list[Any] = []

    def make() -> GputuiApp:
        source = open_source("demo")
        service = open_service("demo", source.source, root=tmp_path / "state", user=ALICE)
        opened.append((source, service))
        # No user themes: a developer's own theme folder must not change the pictures.
        return create_app(source.source, jobs_service=service, poll_interval=3600, themes_path=tmp_path / "no-themes")

    yield make
    for source, service in opened:
        service.close()
        source.source.close()


def submit_jobs(app: GputuiApp) -> None:
    """Three jobs, as from another shell once the dashboard shows the first frame (so on the replay's clock): two
    that run (whole GPUs, a MIG slice) and one that waits."""
    service = app.jobs.service
    assert service is not None
    project = "/home/alice/project"
    service.submit("--gpus=2 -t 2:00:00 -J resnet-training", ["python", "train.py", "--epochs", "90"], cwd=project)
    service.submit("--gres=gpu:3g.40gb:1 -t 30:00 -J mig-eval", ["python", "eval.py"], cwd=project)
    service.submit("--gpus=4 -t 1:00:00 -J big-sweep", ["python", "sweep.py"], cwd=project)


def keys(*presses: str) -> Callable[[Pilot[None]], Any]:
    """run_before for snap_compare: wait for the first poll, submit the jobs, press the keys, wait for the work
    they start."""

    async def run(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, GputuiApp)
        await app.wait_for_polls()
        await pilot.pause()
        submit_jobs(app)
        app.request_poll()  # the queue starts them
        await app.wait_for_polls()
        await pilot.pause()
        await pilot.press(*presses)
        for box in app.screen.query(Input):
            box.cursor_blink = False  # a blinking cursor would make the picture depend on when it is taken
        for _ in range(2):  # a jump polls again and reads the history before it again; the dialog previews
            await pilot.pause(0.35)  # the submit dialog's preview waits for typing to pause (0.3 s)
            await app.wait_for_polls()
            await app.workers.wait_for_complete()
            await pilot.pause()

    return run


@SIZES
@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view(snap_compare: Any, demo_app: Any, view: str, size: tuple[int, int]) -> None:
    assert snap_compare(demo_app(), terminal_size=size, run_before=keys(*VIEWS[view]))


def test_overview_filtered_by_user(snap_compare: Any, demo_app: Any) -> None:
    run = keys(*THREE_MINUTES_IN, "slash", *"bob", "enter")
    assert snap_compare(demo_app(), terminal_size=(160, 50), run_before=run)
