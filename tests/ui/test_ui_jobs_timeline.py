"""The real dashboard (create_app) on the demo with its queue on the replay's timeline (jobs.queue_clock): a
dashboard reopened later opens at the queue's clock, a seek back pauses the queue instead of judging its jobs
against an older frame, and the end of the recording is the end of the queue's time."""

from __future__ import annotations

from pathlib import Path

from jobs_helpers import ALICE
from test_ui_jobs_dashboard import INTERVAL, SIZE, shell_service, until

from gputui.cli.job_session import open_service
from gputui.cli.source_factory import open_source
from gputui.jobs.records import FAILED, PENDING, RUNNING
from gputui.ui import create_app


def open_dashboard(root: Path):  # type: ignore[no-untyped-def]
    """What `gputui --paused demo` builds: the demo, the job service on the store in ``root``, the app."""
    opened = open_source("demo")
    service = open_service("demo", opened.source, root=root / "state", user=ALICE)
    app = create_app(opened.source, jobs_service=service, poll_interval=INTERVAL, themes_path=root / "none")
    return opened.source, service, app


async def seek(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """`g`, the time, Enter: the seek box of the replay bar."""
    await pilot.press("g", *text, "enter")


def paused(app) -> bool:  # type: ignore[no-untyped-def]
    """Whether the dashboard's last tick found its queue paused (what the jobs view says)."""
    return app.job_keys.jobs.paused_at is not None


def states(app) -> dict[int, str]:  # type: ignore[no-untyped-def]
    return {r.id: r.state for r in app.state.jobs_records}


async def test_reopen_seek_back_and_end_never_fail_or_misplace_a_job(tmp_path: Path) -> None:
    source, service, app = open_dashboard(tmp_path)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.feed.poll_count >= 1 and service.owner)
            await seek(pilot, "+5m")
            five = source.start_time + 300
            await until(pilot, lambda: service.now() == five)
            shell = shell_service(tmp_path / "state", service.cluster)
            try:
                mps = shell.submit("--gres=mps:30 -t 1:00 -J infer", ["python", "serve.py"])
                whole = shell.submit("--gpus=1 -t 10:00 -J train", ["python", "train.py"])
            finally:
                shell.close()
            await until(pilot, lambda: states(app).get(mps.id) == RUNNING and whole.id in states(app))
            started_whole = states(app)[whole.id] == RUNNING  # the demo's whole GPUs may all be busy then
    finally:
        service.close()
        source.close()

    # Reopened later: the dashboard opens at the queue's clock (09:05), not at frame 0 before the jobs started.
    source, service, app = open_dashboard(tmp_path)
    try:
        assert source.current().timestamp == five
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.feed.poll_count >= 2 and service.owner)
            assert states(app)[mps.id] == RUNNING
            assert states(app)[whole.id] == (RUNNING if started_whole else PENDING)

            # Back to the start: the queue pauses (its jobs are not judged by a frame from before they began).
            await seek(pilot, "start")
            await until(pilot, lambda: source.current().timestamp == source.start_time and paused(app))
            shell = shell_service(tmp_path / "state", service.cluster)
            try:
                late = shell.submit("--gpus=1 -t 1:00 -J late", ["x"])
            finally:
                shell.close()
            polls = app.feed.poll_count
            await until(pilot, lambda: app.feed.poll_count >= polls + 3)
            assert states(app)[late.id] == PENDING and states(app)[mps.id] == RUNNING
            assert app.job_keys.jobs.paused_at == five
            assert "queue paused at" in app.job_keys.jobs.status()

            # To the end: the queue runs on to the last frame and no further.
            await seek(pilot, "end")
            await until(pilot, lambda: service.now() == source.end_time)
            polls = app.feed.poll_count
            await until(pilot, lambda: app.feed.poll_count >= polls + 3)
            for r in app.state.jobs_records:
                assert r.state != FAILED, (r.id, r.end_reason)
                for t in (r.submit_time, r.start_time, r.end_time):
                    assert t is None or source.start_time <= t <= source.end_time
            assert (
                states(app)[mps.id] != RUNNING
            )  # it ran its minute (and ended before the demo restarts its MPS daemon, at 7 min)
            # Play at the end starts the replay over: the queue pauses at the end instead of running on.
            await pilot.press("space")
            await until(pilot, lambda: source.current().timestamp < source.end_time and paused(app))
            assert service.now() == source.end_time
    finally:
        service.close()
        source.close()
