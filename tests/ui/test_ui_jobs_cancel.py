"""Cancel (from the jobs view and from the GPU detail) through a confirmation whose focus starts on No;
requeue and priority changes; another user's job is refused with the service's one line."""

from __future__ import annotations

from jobs_helpers import BOB, T0, machine
from list_source import ListSource
from textual.widgets import Button, Input, OptionList
from ui_jobs_app import SIZE, JobsTestApp, poll, settle

from gputui.jobs.records import CANCELLED, PENDING, RUNNING
from gputui.ui.dialogs.choice_dialog import ChoiceDialog
from gputui.ui.dialogs.confirm_dialog import ConfirmDialog
from gputui.ui.dialogs.prompt_dialog import PromptDialog
from gputui.ui.widgets.jobs_table import JobsTable
from gputui.ui.widgets.jobs_view import JobsView


def app_for(svc) -> JobsTestApp:  # type: ignore[no-untyped-def]
    return JobsTestApp(ListSource([machine(T0 + i) for i in range(1, 9)]), svc)


def messages(app: JobsTestApp) -> list[str]:
    return app.notified


async def test_cancel_from_the_jobs_view_asks_first_and_no_is_the_default(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("--gpus=1 -t 10:00 -J train", ["python", "train.py"])
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        assert app.query_one(JobsView).select_job(job.id)
        await pilot.press("c")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert app.focused is dialog.query_one("#confirm-no", Button)
        await pilot.press("enter")  # the default answer: nothing happens
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmDialog) and svc.get(job.id).record.state == RUNNING
        await pilot.press("delete")
        await settle(app, pilot)
        await pilot.press("tab", "enter")  # onto "Cancel job"
        await settle(app, pilot)
        assert f"job {job.id} is being stopped" in messages(app)
        assert svc.get(job.id).record.state == CANCELLED  # the poll the cancel asked for has stopped it
        row = [c.plain for c in app.query_one(JobsTable).get_row(str(job.id))]
        assert row[3:5] == [CANCELLED, "cancelled"]
        assert app.snapshot is not None and app.snapshot.nodes[0].gpus[0].processes == ()  # gone from its GPU


async def test_cancel_from_the_gpu_detail_picks_the_job_on_that_gpu(svc) -> None:  # type: ignore[no-untyped-def]
    whole = svc.submit("--gpus=1 -t 10:00", ["python", "a.py"])
    mps1 = svc.submit("--gres=mps:20 -t 10:00 -J s1", ["python", "s1.py"])
    mps2 = svc.submit("--gres=mps:20 -t 10:00 -J s2", ["python", "s2.py"])
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        app.query_one("#gpu").focus()  # the GPU detail has focus, not the jobs view
        app.gpu_key = ("testnode", 1)
        await pilot.press("c")
        await settle(app, pilot)
        assert messages(app)[-1] == "No job of this queue runs on testnode GPU 1"
        app.gpu_key = ("testnode", 0)
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog) and f"Cancel job {whole.id}" in str(app.screen._title)
        await pilot.press("y")
        await settle(app, pilot)
        assert svc.get(whole.id).record.state == CANCELLED
        app.gpu_key = ("testnode", 3)  # two MPS clients: the user picks one
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, ChoiceDialog), messages(app)
        assert app.screen.query_one(OptionList).option_count == 2
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog) and f"Cancel job {mps2.id} (s2)" in str(app.screen._title)
        await pilot.press("y")
        await settle(app, pilot)
        assert [svc.get(j.id).record.state for j in (mps1, mps2)] == [RUNNING, CANCELLED]


async def test_another_users_job_is_refused_with_the_services_line(svc, tmp_path) -> None:  # type: ignore[no-untyped-def]
    theirs = svc.submit("--gpus=1 -t 10:00", ["x"], user=BOB)
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        app.query_one(JobsView).select_job(theirs.id)
        await pilot.press("c")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert messages(app)[-1] == f"job {theirs.id} belongs to bob; only its owner may cancel it"
        assert svc.get(theirs.id).record.state == RUNNING


async def test_requeue_and_priority_from_the_jobs_view(svc) -> None:  # type: ignore[no-untyped-def]
    running = svc.submit("--gpus=3 -t 10:00", ["x"])
    svc.tick(machine(T0 + 0.5))
    waiting = svc.submit("--gpus=2 -t 10:00 --priority=5", ["y"])
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        view = app.query_one(JobsView)
        view.select_job(waiting.id)
        await pilot.press("P")
        await settle(app, pilot)
        prompt = app.screen
        assert isinstance(prompt, PromptDialog), messages(app)
        assert prompt.query_one(Input).value == "5"
        prompt.query_one(Input).value = "-3"
        await pilot.press("enter")  # refused by the check: the prompt stays
        await settle(app, pilot)
        assert app.screen is prompt
        prompt.query_one(Input).value = "40"
        await pilot.press("enter")
        await settle(app, pilot)
        assert svc.get(waiting.id).record.priority == 40
        assert messages(app)[-1] == f"job {waiting.id} now has priority 40"
        view.select_job(running.id)
        await pilot.press("R")  # a running job: asked first
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        await poll(app, pilot)  # the next pass stops it and queues it again; the other job takes the GPUs
        assert svc.get(running.id).record.state == PENDING
        assert svc.get(waiting.id).record.state == RUNNING
