"""The job service opening after the dashboard's first frame: when it opens, what the user sees before and
after, a service that cannot open, and closing it whatever the app got to."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from jobs_helpers import ALICE
from test_ui_jobs_dashboard import INTERVAL, SIZE, shell_service, until

from gputui.cli.job_session import open_service
from gputui.cli.source_factory import open_source
from gputui.cli.ui_cmd import _jobs_for
from gputui.core.model import ClusterSnapshot
from gputui.jobs.backend import JobBackend
from gputui.jobs.errors import StoreLocked
from gputui.jobs.records import RUNNING
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore
from gputui.sources.replay import ReplaySource
from gputui.ui import GputuiApp, create_app


@pytest.fixture
def demo():  # type: ignore[no-untyped-def]
    opened = open_source("demo")  # paused on its first frame
    yield opened.source
    opened.source.close()


def app_with(source: ReplaySource, opener, tmp_path: Path) -> GputuiApp:  # type: ignore[no-untyped-def]
    return create_app(source, jobs_opener=opener, poll_interval=INTERVAL, themes_path=tmp_path / "none")


async def test_the_service_opens_after_the_first_frame_and_then_runs_jobs(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    state = tmp_path / "state"
    drawn_before: list[ClusterSnapshot | None] = []

    def opener() -> JobBackend:
        drawn_before.append(app.state.snapshot)
        return open_service("demo", demo, root=state, user=ALICE)

    app = app_with(demo, opener, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.jobs.service, JobService) and app.jobs.service.owner)
        assert drawn_before and drawn_before[0] is not None  # a frame was applied before the service opened
        assert app.jobs.opener is None and app.shows_events
        service = app.jobs.service
        other = shell_service(state, service.cluster)
        try:
            job = other.submit("--gpus=1 -t 30:00 -J later", ["python", "train.py"])
        finally:
            other.close()
        await until(pilot, lambda: any(r.id == job.id and r.state == RUNNING for r in app.state.jobs_records))
        assert any("job " + str(job.id) in label for label in app.state.jobs_by_gpu.values())
    app.close_jobs()
    assert JobStore(state / "jobs.db").owner(service.cluster) is None  # closed: the lease is given back


async def test_a_service_that_cannot_open_leaves_a_note_and_the_dashboard_runs_on(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    def opener() -> JobBackend:
        raise StoreLocked("state database is locked by another gputui (pid 4242; /x/jobs.db); try again")

    app = app_with(demo, opener, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.jobs.note is not None)
        assert app.jobs.note == (
            "jobs are unavailable: state database is locked by another gputui (pid 4242; /x/jobs.db); try again"
        )
        assert app.jobs.service is None and app.jobs.opener is None
        assert any(n.message == app.jobs.note for n in app._notifications)
        await pilot.press("s")  # submit says why it cannot
        await until(pilot, lambda: sum(n.message == app.jobs.note for n in app._notifications) == 2)
        position = demo.position
        await pilot.press("right")  # the replay still steps
        await until(pilot, lambda: demo.position == position + 1)
    app.close_jobs()  # nothing to close: no error


async def test_job_actions_before_the_service_is_open_say_so(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    release = threading.Event()
    state = tmp_path / "state"

    def opener() -> JobBackend:
        release.wait(10)
        return open_service("demo", demo, root=state, user=ALICE)

    app = app_with(demo, opener, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1 and app.jobs.opening is not None)
        await pilot.press("s")
        await until(pilot, lambda: any("still opening" in n.message for n in app._notifications))
        assert app.screen.__class__.__name__ != "SubmitDialog"
        release.set()
        await until(pilot, lambda: app.jobs.service is not None)
        await pilot.press("s")
        await until(pilot, lambda: app.screen.__class__.__name__ == "SubmitDialog")
        await pilot.press("escape")
    app.close_jobs()


async def test_closing_waits_for_a_service_still_opening_and_closes_it(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    release, opened = threading.Event(), []
    state = tmp_path / "state"

    def opener() -> JobBackend:
        release.wait(10)
        service = open_service("demo", demo, root=state, user=ALICE)
        opened.append(service)
        return service

    app = app_with(demo, opener, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.jobs.opening is not None)
    assert app.jobs.service is None  # the app ended before the service was open
    release.set()
    app.close_jobs()
    assert len(opened) == 1
    store = JobStore(state / "jobs.db")
    try:
        assert store.owner(opened[0].cluster) is None  # the closed service gave its lease back
    finally:
        store.close()


def test_the_command_opens_the_service_later_only_for_an_idle_queue(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    state = tmp_path / "state"
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(state))
    service, note, opener = _jobs_for("demo", demo)
    assert service is None and note is None and opener is not None
    assert not state.exists()  # the look creates nothing
    later = opener()
    try:
        job = later.submit("--gpus=1 -J waiting", ["true"])
        assert job.pending
    finally:
        later.close()
    service, note, opener = _jobs_for("demo", demo)  # a job waits: the first frame needs the queue
    try:
        assert isinstance(service, JobService) and note is None and opener is None
    finally:
        assert service is not None
        service.close()
