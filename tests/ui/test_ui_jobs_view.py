"""The jobs view: rows from the job service after each tick, sort and filter, the detail pane, read-only mode."""

from __future__ import annotations

import pytest
from jobs_helpers import T0, machine, sim_service
from list_source import ListSource
from ui_jobs_app import SIZE, JobsTestApp, poll, settle

from gputui.dashboard.job_records import jobs_on_gpu
from gputui.jobs.records import CANCELLED, COMPLETED, PENDING, RUNNING
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.widgets.job_detail import LABEL_WIDTH
from gputui.ui.widgets.jobs_table import JobsTable, job_rows, time_text
from gputui.ui.widgets.jobs_view import JobsView


@pytest.fixture
def svc(tmp_path):  # type: ignore[no-untyped-def]
    s = sim_service(tmp_path)
    yield s
    s.close()


def cells(app: JobsTestApp, job_id: int) -> list[str]:
    return [c.plain for c in app.query_one(JobsTable).get_row(str(job_id))]


def by_column(app: JobsTestApp, job_id: int) -> dict[str, str]:
    """A job's row by column key (which columns show depends on the width)."""
    keys = [k for k, _, _ in app.query_one(JobsTable).columns]
    return dict(zip(keys, cells(app, job_id), strict=True))


def detail_text(app: JobsTestApp) -> str:
    """The detail pane's text, a value wrapped under itself joined again."""
    return app.query_one("#jobs-detail-text", TextPanel).text.plain.replace("\n" + " " * LABEL_WIDTH, " ")


def summary(app: JobsTestApp) -> str:
    return app.query_one("#jobs-summary", TextPanel).text.plain


def source(n: int = 5) -> ListSource:
    return ListSource([machine(T0 + i) for i in range(n)])


async def test_pending_running_and_finished_jobs_with_every_column(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    a = svc.submit("--gpus=2 -t 10:00 -J train", ["python", "train.py"])
    b = svc.submit("--gpus=2 -t 10:00 -J waits", ["python", "more.py"])  # the two whole GPUs are taken
    c = svc.submit("--gres=gpu:3g.20gb:1 -t 1", ["python", "mig.py"])  # ends after 60 s
    d = svc.submit("--gres=mps:25 -t 10:00", ["python", "serve.py"])
    app = JobsTestApp(ListSource([machine(T0 + 1), machine(T0 + 100)]), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        table = app.query_one(JobsTable)
        assert table.row_order == [str(j.id) for j in (a, b, c, d)]
        assert by_column(app, a.id) == {
            "id": str(a.id), "name": "train", "user": "alice", "state": RUNNING, "reason": "", "gran": "node",
            "alloc": "testnode:0,1", "start": "08:00:01", "elapsed": "0:00",
        } | ({"submit": "08:00:00"} if "submit" in by_column(app, a.id) else {})  # fmt: skip
        row_b = by_column(app, b.id)
        assert [row_b[k] for k in ("state", "reason", "gran", "alloc", "start", "elapsed")] == [
            PENDING, "Resources", "node", "", "", "",
        ]  # fmt: skip
        assert [by_column(app, c.id)[k] for k in ("gran", "alloc")] == ["MIG", "testnode:2[3g.20gb GI 1]"]
        assert [by_column(app, d.id)[k] for k in ("gran", "alloc")] == ["MPS", "testnode:3[MPS 25%]"]
        assert summary(app).startswith("Jobs 3 running · 1 pending · 0 finished")
        await poll(app, pilot)  # 99 s later: the MIG job has ended, the elapsed times moved on
        assert [by_column(app, c.id)[k] for k in ("state", "reason")] == [COMPLETED, "completed"]
        assert by_column(app, a.id)["elapsed"] == "1:39"
        assert table.row_order[-1] == str(c.id)  # finished jobs after the active ones


async def test_the_detail_pane_shows_request_allocation_environment_and_explanation(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    job = svc.submit("--gpus=1 --mem-per-gpu=8G -t 5:00 -J train", ["python", "train.py", "--lr", "3e-4"])
    app = JobsTestApp(source(), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        app.query_one(JobsTable).focus()
        await settle(app, pilot)
        text = detail_text(app)
        assert f"Job {job.id}  train  alice  RUNNING" in text
        assert "Request    1 GPU(s); 8 GiB per GPU" in text  # host memory, as Slurm means --mem-per-gpu
        assert "Options    --gpus=1 --mem-per-gpu=8G -t 5:00 -J train" in text
        assert "Command    python train.py --lr 3e-4" in text
        assert "Allocation testnode:0 (1 CPU, 8 GiB)" in text
        assert "Why        running on testnode:0 (1 CPU, 8 GiB) for 0 s" in text
        assert "Environment on testnode" in text and "CUDA_VISIBLE_DEVICES=GPU-test-0" in text
        assert f"SLURM_JOB_ID={job.id}" in text
        assert "(a simulated job writes no output)" in text
        assert "limit 00:05:00" in text


async def test_the_detail_follows_a_jump_of_the_queues_clock_at_once(svc) -> None:  # type: ignore[no-untyped-def]
    # a replay sought two minutes on: the running job's record is the same, its "running for" is not, and the
    # pane must not wait for its five-second refresh to say so
    svc.tick(machine(T0))
    job = svc.submit("--gpus=1 -t 5:00 -J train", ["python", "train.py"])
    app = JobsTestApp(ListSource([machine(T0 + 1), machine(T0 + 121)]), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        app.query_one(JobsTable).focus()
        await settle(app, pilot)
        assert "for 0 s" in detail_text(app)
        record = app.query_one(JobsView).records[job.id]
        await poll(app, pilot)
        await settle(app, pilot)
        assert app.query_one(JobsView).records[job.id] == record  # nothing about the job itself changed
        assert "for 120 s" in detail_text(app)


async def test_a_waiting_jobs_detail_says_why(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    svc.submit("--gpus=2 -t 10:00", ["python", "a.py"])
    waits = svc.submit("--gpus=2 -t 10:00 -J second", ["python", "b.py"])
    app = JobsTestApp(source(), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        view = app.query_one(JobsView)
        assert view.select_job(waits.id)
        await settle(app, pilot)
        text = detail_text(app)
        assert "PENDING" in text and "(Slurm's reason: Resources)" in text and "simulated on a replay" in text
        assert "Allocation none yet" in text and "given when the job starts" in text


async def test_sort_by_key_and_by_header_click_and_filter(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    ids = [svc.submit(f"--gpus=2 -t 10:00 -J {name}", ["x"]).id for name in ("zeta", "alpha", "mid")]
    app = JobsTestApp(source(), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        table = app.query_one(JobsTable)
        table.focus()
        assert table.row_order == [str(i) for i in ids]
        await pilot.press("o", "o")  # id, then name
        assert table.sort_column == "name"
        assert [cells(app, int(k))[1] for k in table.row_order] == ["alpha", "mid", "zeta"]
        assert "sorted by name ▲" in summary(app)
        await pilot.press("O")
        assert [cells(app, int(k))[1] for k in table.row_order] == ["zeta", "mid", "alpha"]
        # a click on the State header sorts by state: running first, then pending
        x = sum(w + 2 for _, _, w in table.columns[:3]) + 1
        await pilot.click(JobsTable, offset=(x, 0))
        assert table.sort_column == "state"
        assert [cells(app, int(k))[3] for k in table.row_order] == [RUNNING, PENDING, PENDING]
        # filter: typed text, then the state filter
        await pilot.press("slash", "a", "l", "p")
        assert table.row_order == [str(ids[1])]
        assert "1 of 3 shown" in summary(app)
        await pilot.press("escape")
        assert table.row_order != [str(ids[1])] and table.has_focus
        await pilot.press("f", "f")  # all -> active -> pending
        assert [cells(app, int(k))[3] for k in table.row_order] == [PENDING, PENDING]
        assert "showing pending" in summary(app)


async def test_without_a_job_service_the_view_says_why_and_actions_notify(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = JobsTestApp(source(), None, jobs_note="jobs are unavailable: the state database is locked")
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        assert "jobs are unavailable: the state database is locked" in summary(app)
        await pilot.press("s")
        await settle(app, pilot)
        assert len(app.screen_stack) == 1
        assert app.notified == ["jobs are unavailable: the state database is locked"]


async def test_readonly_hides_submit_cancel_requeue_and_priority(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    svc.submit("--gpus=1 -t 10:00", ["x"])
    app = JobsTestApp(source(), svc, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        app.query_one(JobsTable).focus()
        for key in ("s", "c", "delete", "R", "P"):
            await pilot.press(key)
            await settle(app, pilot)
            assert len(app.screen_stack) == 1, key
        assert [r.state for r in svc.list()] == [RUNNING]
        assert not app.check_action("submit_job", ()) and app.check_action("toggle_jobs", ())


def test_job_rows_order_and_filters(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    a = svc.submit("--gpus=1 -t 1", ["x"])
    b = svc.submit("--gpus=1 -t 2", ["x"])
    c = svc.submit("--gpus=1 -t 10:00 -J later", ["x"])
    svc.tick(machine(T0 + 1))
    svc.cancel(c.id)
    svc.tick(machine(T0 + 500))  # a ended at 61, b at 121
    d = svc.submit("--gpus=3 -t 10:00", ["x"])
    svc.tick(machine(T0 + 501))
    records = svc.list()
    states = {r.id: r.state for r in records}
    assert states == {a.id: COMPLETED, b.id: COMPLETED, c.id: CANCELLED, d.id: states[d.id]}
    rows = job_rows(records, T0 + 501)
    assert [r.id for r in rows][:1] == [d.id] and [r.id for r in rows][1:] == [c.id, b.id, a.id]  # newest end first
    assert [r.id for r in job_rows(records, T0, "finished")] == [c.id, b.id, a.id]
    assert [r.id for r in job_rows(records, T0, "all", "LATER")] == [c.id]
    assert [r.id for r in job_rows(records, T0, "running")] == [d.id] and states[d.id] == RUNNING
    assert job_rows(records, T0, "pending") == []


def test_time_text_shows_the_date_only_on_another_day() -> None:
    assert time_text(T0, T0 + 60) == "08:00:00"
    assert time_text(T0, T0 + 86_400) == "01-15 08:00"
    assert time_text(None, T0) == ""


def test_jobs_on_gpu_finds_whole_mig_and_mps_holders(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(machine(T0))
    whole = svc.submit("--gpus=1 -t 10:00", ["x"])
    mps1 = svc.submit("--gres=mps:20 -t 10:00", ["x"])
    mps2 = svc.submit("--gres=mps:20 -t 10:00", ["x"])
    svc.tick(machine(T0 + 1))
    records = svc.list()
    assert [r.id for r in jobs_on_gpu(records, "testnode", 0)] == [whole.id]
    assert [r.id for r in jobs_on_gpu(records, "testnode", 3)] == [mps1.id, mps2.id]
    assert jobs_on_gpu(records, "testnode", 1) == [] and jobs_on_gpu(records, "other", 0) == []
