"""The real dashboard (create_app) with the job service on the demo recording: a job submitted by another
process shows within the poll interval while the replay is paused, its GPU names it, stepping never draws
the frame without it, and cancelling through the confirmation ends it."""

from __future__ import annotations

from pathlib import Path

import pytest
from jobs_helpers import ALICE, other_process
from test_ui_app import settle
from textual.widget import Widget
from textual.widgets import Button

from gputui.cli.job_session import open_service
from gputui.cli.source_factory import open_source
from gputui.core.model import ClusterSnapshot
from gputui.jobs.overlay import RANKS_PER_JOB, sim_pid
from gputui.jobs.records import CANCELLED, RUNNING
from gputui.jobs.runners.simulated import SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore
from gputui.ui import GputuiApp, create_app
from gputui.ui.dialogs.confirm_dialog import ConfirmDialog
from gputui.ui.widgets.jobs_view import JobsView

SIZE = (160, 50)
INTERVAL = 0.05


async def until(pilot, cond, tries: int = 200) -> None:  # type: ignore[no-untyped-def]
    """Let the app run until ``cond()`` holds (bounded: fails after ``tries`` short pauses)."""
    for _ in range(tries):
        if cond():
            return
        await pilot.pause(0.02)
    raise AssertionError("the dashboard did not get there")


def job_pids(snap: ClusterSnapshot | None, job_id: int) -> list[str]:
    """Where the simulated job ``job_id`` shows as a process ('node/gpu'), in ``snap``."""
    if snap is None:
        return []
    return [
        f"{n.name}/{g.index}"
        for n in snap.nodes
        for g in n.gpus
        for p in g.processes
        if p.pid // RANKS_PER_JOB == sim_pid(job_id, 0) // RANKS_PER_JOB
    ]


@pytest.fixture
def dashboard(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = open_source("demo")  # paused on its first frame, as `gputui --paused demo`
    service = open_service("demo", opened.source, root=tmp_path / "state", user=ALICE)
    app = create_app(opened.source, jobs_service=service, poll_interval=INTERVAL, themes_path=tmp_path / "none")
    yield app, service, tmp_path / "state"
    service.close()
    opened.source.close()


def shell_service(state: Path, cluster: str) -> JobService:
    """What `gputui submit` in another shell opens: the same store, another process."""
    store = JobStore(state / "jobs.db", busy_timeout_s=2.0)
    return JobService(store, SimRunner(), cluster, user=ALICE, process=other_process())


async def test_a_job_from_another_shell_runs_shows_and_cancels_in_the_paused_dashboard(dashboard) -> None:  # type: ignore[no-untyped-def]
    app, service, state = dashboard
    assert isinstance(app, GputuiApp) and app.replay is not None and not app.replay.playing
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1 and service.owner)
        other = shell_service(state, service.cluster)
        try:
            job = other.submit("--gpus=1 -t 30:00 -J from-shell", ["python", "train.py"])
        finally:
            other.close()
        polls = app.feed.poll_count
        # The replay stays paused, yet the queue is looked at each interval: the job starts and shows.
        await until(pilot, lambda: any(r.id == job.id and r.state == RUNNING for r in app.state.jobs_records))
        assert app.feed.poll_count > polls and not app.replay.playing
        held = job_pids(app.state.snapshot, job.id)
        assert len(held) == 1
        assert app.state.jobs_by_gpu.get(held[0]) == f"job {job.id} from-shell"
        app.set_filter("from-shell")  # what `/` does: only the GPU this job holds is listed
        await until(pilot, lambda: app._gpu_order() == held)
        app.set_filter("")

        # Stepping the paused replay: every frame drawn has the job on its GPU (no raw frame first).
        drawn: list[ClusterSnapshot] = []
        apply = app.apply_snapshot

        def recording_apply(snap: ClusterSnapshot) -> None:
            drawn.append(snap)
            apply(snap)

        app.apply_snapshot = recording_apply  # type: ignore[method-assign]
        position = app.replay.position
        await pilot.press("right")
        await until(pilot, lambda: app.replay.position == position + 1 and drawn and drawn[-1].timestamp > 0)
        await until(pilot, lambda: app.state.snapshot is not None and app.state.snapshot.timestamp == app.replay.time)
        assert drawn and all(job_pids(s, job.id) == held for s in drawn)

        # Cancel it from the jobs view through the confirmation (focus starts on No).
        await pilot.press("j")
        await until(pilot, lambda: app.job_keys.jobs_view() is not None and app.job_keys.jobs_view().display)
        view = app.job_keys.jobs_view()
        assert isinstance(view, JobsView)
        await until(pilot, lambda: view.select_job(job.id))
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert app.focused is app.screen.query_one("#confirm-no", Button)
        await pilot.press("tab", "enter")
        await until(pilot, lambda: any(r.id == job.id and r.state == CANCELLED for r in app.state.jobs_records))
        await until(pilot, lambda: not job_pids(app.state.snapshot, job.id))
        assert held[0] not in app.state.jobs_by_gpu


async def test_a_cpu_only_job_runs_in_the_dashboard_on_cpus_and_holds_no_gpu(dashboard) -> None:  # type: ignore[no-untyped-def]
    from gputui.ui.widgets.jobs_table import JobsTable

    app, service, state = dashboard
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1 and service.owner)
        held_before = dict(app.state.jobs_by_gpu)
        other = shell_service(state, service.cluster)
        try:
            job = other.submit("-c 4 --mem=8G -t 30:00 -J etl", ["python", "etl.py"])
        finally:
            other.close()
        await until(pilot, lambda: any(r.id == job.id and r.state == RUNNING for r in app.state.jobs_records))
        assert app.state.jobs_by_gpu == held_before  # it takes CPUs and memory, no GPU
        await pilot.press("j")
        await until(pilot, lambda: app.job_keys.jobs_view() is not None and app.job_keys.jobs_view().display)
        table = app.job_keys.jobs_view().query_one(JobsTable)
        await until(pilot, lambda: str(job.id) in table.row_order)
        row = [c.plain for c in table.get_row(str(job.id))]
        assert "CPU" in row and "node01 (4 CPUs, 8 GiB)" in row


def _lines(widget: Widget) -> list[str]:
    """What a widget draws, line by line."""
    return ["".join(seg.text for seg in widget.render_line(y)) for y in range(widget.size.height)]


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
async def test_the_jobs_view_fits_its_width_with_whole_columns_and_whole_uuids(dashboard, size) -> None:  # type: ignore[no-untyped-def]
    from gputui.ui.widgets.jobs_table import JobsTable

    app, service, _ = dashboard
    mig = service.submit("--gres=gpu:3g.40gb:1 -J mig -t 30:00", ["sleep", "600"])
    service.submit("--gpus=2 -J resnet-training -t 30:00", ["python", "train.py"])
    waiting = service.submit("--gpus=4 -J big -t 30:00", ["sleep", "600"])
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1)
        await pilot.press("4")
        await until(pilot, lambda: app.job_keys.jobs_view() is not None and len(app.job_keys.jobs_view().records) == 3)
        view = app.job_keys.jobs_view()
        table = view.query_one(JobsTable)
        await until(pilot, lambda: table.row_count == 3)
        keys = [k for k, _, _ in table.columns]
        assert sum(w + 2 for _, _, w in table.columns) <= table.size.width
        header = _lines(table)[0]
        for _, label, _ in table.columns:
            assert label in header  # every header whole
        if size[0] == 160:
            assert {"alloc", "reason", "start", "elapsed"} <= set(keys)
        else:  # squeue's columns first, in its order
            assert keys[:6] == ["id", "name", "user", "state", "elapsed", "where"]
        texts = {k: [c.plain for c in table.get_row(k)] for k in table.row_order}
        widths = dict(zip(keys, (w for _, _, w in table.columns), strict=True))
        for row in texts.values():
            for key, cell in zip(keys, row, strict=True):
                assert len(cell) <= widths[key] and (key == "name" or "…" not in cell)
        where = "alloc" if "alloc" in keys else "where"
        assert "3g.40gb" in texts[str(mig.id)][keys.index(where)]
        assert "Resources" in " ".join(texts[str(waiting.id)])
        # The MIG job's detail: its MIG UUID whole on one line of the pane.
        await until(pilot, lambda: view.select_job(mig.id))
        panel = view.query_one("#jobs-detail-text")
        uuid = next(v for env in view.records[mig.id].environment.values() for v in env.values() if "MIG-" in v)
        await until(pilot, lambda: any(uuid in line for line in _lines(panel)))


async def burst(app: GputuiApp, keys: str | list[str]) -> None:
    """Send ``keys`` the way a fast typist or a paste does: all queued at once, none waiting for the last."""
    from textual import events

    assert app._driver is not None
    for key in keys:
        char = key if len(key) == 1 else None
        name = {" ": "space", "-": "minus", ".": "full_stop", "=": "equals_sign", ":": "colon"}.get(key, key)
        app._driver.send_message(events.Key(name, char))


async def test_fast_typing_in_the_submit_dialog_lands_in_the_right_fields(dashboard) -> None:  # type: ignore[no-untyped-def]
    from gputui.ui.dialogs.submit_dialog import SubmitDialog

    app, service, _ = dashboard
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1 and service.owner)
        theme = app.theme
        await burst(app, ["s", *"train", "tab", *"sleep 60", "tab", *"2", "tab", "tab", "tab", "tab", *"3"])
        await until(pilot, lambda: isinstance(app.screen, SubmitDialog) and app.screen.is_mounted)
        await settle(app, pilot)
        d = app.screen
        assert isinstance(d, SubmitDialog)
        assert [d.value(f) for f in ("name", "command", "gpus", "gpus_per_node", "gpu_ids")] == [
            "train", "sleep 60", "2", "", "3",
        ]  # fmt: skip
        assert app.theme == theme and app.record_keys.controller.recording is None  # no key went to the overview


async def test_at_80x24_every_field_of_the_submit_dialog_is_reachable_and_the_buttons_always_show(dashboard) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Input

    from gputui.ui.dialogs.submit_dialog import FIELD_NAMES, ROWS, SubmitDialog

    app, service, _ = dashboard
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.feed.poll_count >= 1 and service.owner)
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SubmitDialog) and app.screen.is_mounted)
        d = app.screen
        labels = {name: label for row in ROWS for name, label, *_ in row}
        screen = d.region
        pane = d.query_one("#form-pane").region
        for name in FIELD_NAMES:
            await settle(app, pilot)
            field = d.query_one(f"#f-{name}", Input)
            assert app.focused is field
            assert pane.contains_region(field.region), name  # scrolled into view
            box = field.region  # with its border, whose top line carries the label
            screen_lines = ["".join(seg.text for seg in strip) for strip in d._compositor.render_strips()]
            assert f" {labels[name]} " in screen_lines[box.y][box.x : box.right], name
            for button in ("#submit-ok", "#submit-cancel"):
                assert screen.contains_region(d.query_one(button).region) and d.query_one(button).region.height == 1
            await pilot.press("tab")
