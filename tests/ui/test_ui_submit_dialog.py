"""The submit dialog: inline errors from the parser while typing, the live preview, Enter submits and the job
shows in the jobs view at once; the pasted Slurm line; batch scripts; refusals keep the form."""

from __future__ import annotations

from pathlib import Path

from jobs_helpers import T0, machine
from list_source import ListSource
from textual.widgets import Input, Static
from ui_jobs_app import SIZE, JobsTestApp, poll, settle

from gputui.dashboard.submit_check import WHOLE, JobSubmission, check_form, check_line, field_of, form_job, line_job
from gputui.jobs.form import JobForm
from gputui.jobs.records import PENDING, RUNNING
from gputui.ui.dialogs.submit_dialog import SubmitDialog
from gputui.ui.widgets.jobs_table import JobsTable
from gputui.ui.widgets.jobs_view import JobsView


def app_for(svc) -> JobsTestApp:  # type: ignore[no-untyped-def]
    return JobsTestApp(ListSource([machine(T0 + i) for i in range(1, 6)]), svc)


def dialog(app: JobsTestApp) -> SubmitDialog:
    assert isinstance(app.screen, SubmitDialog)
    return app.screen


def shown(d: SubmitDialog, widget_id: str) -> str:
    w = d.query_one(f"#{widget_id}", Static)
    return str(w.render()) if w.display else ""


def problem(d: SubmitDialog, label: str) -> str:
    """The message shown under the form row for the field labelled ``label`` ("" when none)."""
    lines = [line for i in range(4) for line in shown(d, f"e-row{i}").splitlines()]
    return next((line[len(label) + 2 :] for line in lines if line.startswith(f"{label}: ")), "")


async def open_dialog(app: JobsTestApp, pilot) -> SubmitDialog:  # type: ignore[no-untyped-def]
    await poll(app, pilot)
    await pilot.press("s")
    await settle(app, pilot)
    d = dialog(app)
    d.debounce_s = 0  # preview at once; the debounce itself is a timer, not what these tests are about
    return d


async def type_into(pilot, d: SubmitDialog, field: str, text: str) -> None:  # type: ignore[no-untyped-def]
    d.query_one(f"#f-{field}", Input).focus()
    await pilot.press(*text)  # letters and digits only: each is its own key name


async def test_typing_shows_the_parsers_errors_under_their_fields_and_a_live_preview(svc) -> None:  # type: ignore[no-untyped-def]
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        assert d.query_one("#f-name", Input).has_focus
        assert shown(d, "submit-problem") == ""  # an empty form is a CPU-only job of one CPU
        await type_into(pilot, d, "gpus", "x")
        assert problem(d, "GPUs") == "--gpus: count 'x' is not a whole number"
        assert d.query_one("#f-gpus", Input).has_class("-problem")
        await type_into(pilot, d, "time", "x1")
        assert problem(d, "Time limit").startswith("--time: cannot read time limit 'x1'")
        assert problem(d, "GPUs") != ""  # both problems at once
        assert "Fix the problems" in shown(d, "submit-preview")
        await pilot.press("enter")  # refused: the focus goes to the first field with a problem
        await settle(app, pilot)
        assert d.query_one("#f-gpus", Input).has_focus and svc.list() == []
        d.fill(gpus="1", time="10:00")
        await settle(app, pilot)
        assert problem(d, "GPUs") == "" and problem(d, "Time limit") == ""
        assert shown(d, "submit-preview") == "▶ would start now on testnode:0"
        d.fill(gpus="9")
        await settle(app, pilot)  # the parser accepts it; the service's capacity check does not
        assert problem(d, "GPUs") == "--gpus=9: the cluster has 3 such GPUs"


async def test_enter_submits_and_the_job_is_in_the_jobs_view_at_once(svc) -> None:  # type: ignore[no-untyped-def]
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        d.fill(name="train", command="python train.py --lr 0.1", mem_per_gpu="8G", time="30:00")
        await type_into(pilot, d, "gpus", "2")
        await settle(app, pilot)
        assert shown(d, "submit-preview") == "▶ would start now on testnode:0,1"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        # the dialog is gone and the view lists the job (stored as pending) before any further poll
        assert not isinstance(app.screen, SubmitDialog)
        (rec,) = svc.list()
        assert (rec.name, rec.command, rec.options) == (
            "train", ("python", "train.py", "--lr", "0.1"), "--job-name=train --gpus=2 --gpu-mem=8G --time=30:00",
        )  # fmt: skip
        view = app.query_one(JobsView)
        assert view.selected_job is not None and view.selected_job.id == rec.id
        assert any("submitted: 2 GPU(s)" in m for m in app.notified)
        await settle(app, pilot)  # the poll asked for by the submit has run: the job started on its GPUs
        assert svc.get(rec.id).record.state == RUNNING
        assert [c.plain for c in app.query_one(JobsTable).get_row(str(rec.id))][3] == RUNNING
        gpu0 = app.snapshot.nodes[0].gpus[0]  # type: ignore[union-attr]
        assert [p.command for p in gpu0.processes] == ["python train.py --lr 0.1"]


async def test_a_pasted_slurm_line_is_checked_previewed_and_submitted(svc) -> None:  # type: ignore[no-untyped-def]
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        await pilot.press("f2")
        assert d.mode == "line" and d.query_one("#f-line", Input).has_focus
        d.fill(line="--gres=mps:30 --bogus -- python serve.py")
        await settle(app, pilot)
        assert shown(d, "e-line") == "unsupported option --bogus"
        d.fill(line="--gres=mps:30 -J serve")
        await settle(app, pilot)
        assert shown(d, "e-line").startswith("no command")
        d.fill(line="--gres=mps:30 -J serve -t 1:00:00 -- python serve.py")
        await settle(app, pilot)
        assert shown(d, "e-line") == "" and shown(d, "submit-preview") == "▶ would start now on testnode:3[MPS 30%]"
        await pilot.press("enter")
        await settle(app, pilot)
        (rec,) = svc.list()
        assert (rec.name, rec.command, rec.request.mps_percent) == ("serve", ("python", "serve.py"), 30)


async def test_a_job_that_must_wait_is_previewed_with_the_schedulers_reason(svc) -> None:  # type: ignore[no-untyped-def]
    svc.submit("--gpus=3 -t 1:00:00", ["x"])
    svc.tick(machine(T0 + 1))
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        d.fill(gpus="2", time="10:00", command="python b.py")
        await settle(app, pilot)
        preview = shown(d, "submit-preview")
        assert preview.startswith("⏸ would wait (Resources): ")
        assert "starts by 09:00:01 at the latest" in preview  # when the running job's hour is up
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert [r.state for r in svc.list()] == [RUNNING, PENDING]


async def test_a_batch_script_in_the_command_field_is_read_for_its_sbatch_lines(svc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#SBATCH --gpus=1\n#SBATCH -J fromscript\npython train.py\n")
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        d.fill(command=f"{script} --epochs 3")
        await settle(app, pilot)
        assert shown(d, "submit-problem") == ""  # the GPUs come from the script
        assert shown(d, "submit-preview") == "▶ would start now on testnode:0"
        await pilot.press("enter")
        await settle(app, pilot)
        (rec,) = svc.list()
        assert (rec.name, rec.script_path, rec.command) == ("fromscript", str(script), ("--epochs", "3"))


async def test_escape_closes_without_submitting_and_a_refused_submit_keeps_the_form(svc) -> None:  # type: ignore[no-untyped-def]
    app = app_for(svc)
    async with app.run_test(size=SIZE) as pilot:
        d = await open_dialog(app, pilot)
        d.fill(gpus="1")
        await settle(app, pilot)
        await pilot.press("enter")  # no command
        await settle(app, pilot)
        assert problem(d, "Command or batch script") == "give a command, or the path of a batch script"
        assert d.query_one("#f-command", Input).has_focus
        d.fill(command="python x.py", extra="--dependency=afterok:77")
        await settle(app, pilot)
        await pilot.press("enter")  # the service refuses: no such job
        await settle(app, pilot)
        assert isinstance(app.screen, SubmitDialog) and problem(d, "Slurm options") == "--dependency: no job 77"
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, SubmitDialog) and svc.list() == []


def test_check_form_puts_each_parser_message_under_its_field() -> None:
    cases = [
        (JobForm(gpus="2"), {}),
        (JobForm(), {}),  # a CPU-only job of one CPU
        (JobForm(cpus="x", mem="lots"), {"cpus", "mem"}),
        (JobForm(extra="--cpus-per-gpu=4"), {"extra": "--cpus-per-gpu: the job asks for no GPU (use --cpus-per-task)"}),
        (JobForm(gpus="abc", time="zz", mps_percent="150"), {"gpus", "time", "mps_percent"}),
        (JobForm(nodes="x", gpus_per_node="2"), {"nodes"}),
        (JobForm(nodelist="n[1-", gpus="1"), {"nodelist"}),
        (JobForm(gpu_ids="0,1"), {"gpu_ids"}),
        (JobForm(mig_profile="9g.99gb"), {"mig_profile"}),
        (JobForm(mig_profile="3g.20gb", mig_count="x"), {"mig_count"}),
        (JobForm(mem_per_gpu="lots", gpus="1"), {"mem_per_gpu"}),
        (JobForm(priority="-1", gpus="1"), {"priority"}),
        (JobForm(gpus="1", extra="--bogus"), {"extra"}),
        (JobForm(gpus="1", extra="'open"), {"extra"}),
        (JobForm(gpus="1", extra="--time=never"), {"extra"}),
    ]
    for form, expected in cases:
        got = check_form(form)
        assert (got if isinstance(expected, dict) else set(got)) == expected, form
    # with a batch script the GPUs may come from its #SBATCH lines
    assert check_form(JobForm(), command_from_script=True) == {}


def test_field_of_maps_service_messages_too() -> None:
    assert field_of("--gpus=9: the cluster has 3 such GPUs", JobForm(gpus="9")) == "gpus"
    assert field_of("--nodelist: no node named x", JobForm(nodelist="x")) == "nodelist"
    assert field_of("--nodelist: no node named x", JobForm(extra="--nodelist=x")) == "extra"
    assert field_of("no command: give one after --", JobForm()) == WHOLE


def test_line_and_form_submissions() -> None:
    assert check_line("--gpus=2 -- python x.py") is None
    assert check_line("--gpus=2 python x.py") is None
    assert line_job("--gpus=2 python x.py") == JobSubmission(("--gpus=2", "python", "x.py"))
    job = form_job(JobForm(gpus="1", command="python 'my file.py'"))
    assert job == JobSubmission(("--gpus=1",), ("python", "my file.py"))
    assert job.preview_args == (["--gpus=1", "--", "python", "my file.py"], None)
