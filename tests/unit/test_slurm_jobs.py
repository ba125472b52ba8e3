"""The Slurm job back end on the captured 22.05 outputs through a fake runner: records, events, the exact argv of
sbatch / scancel / scontrol, refusals before any call, Slurm's own errors passed through, and the what-if."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FIXTURES

from gputui.core.scheduler.errors import RequestError
from gputui.jobs.backend import JobBackend
from gputui.jobs.errors import JobError, JobNotFound, JobRefused
from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, User, current_user
from gputui.slurm import SlurmJobs, SlurmSource
from gputui.slurm.commands import Completed
from gputui.slurm.errors import SlurmError
from gputui.slurm.fake import FakeSlurm, captured_answers

SLURM = FIXTURES / "slurm"
JOBS_JSON = ("squeue", "--json")
ME = current_user()
ALICE = User("alice", 54321)
BOB = User("bob", 4242)
T0 = 1796122497.0
AHEAD = "; 1 job(s) ahead of it in Slurm's queue"  # job 8, waiting for resources


def errors_fixture(heading: str) -> str:
    """The stderr captured under one heading of 22.05-errors.txt."""
    text = (SLURM / "22.05-errors.txt").read_text()
    block = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return block.split("stderr:\n", 1)[1].rstrip("\n") + "\n"


def squeue(change: Callable[[dict[int, dict]], None] | None = None) -> str:
    """The captured squeue --json, every job made this user's except job 8 (alice's), then ``change``d."""
    data = json.loads((SLURM / "22.05-squeue.json").read_text())
    by_id = {j["job_id"]: j for j in data["jobs"]}
    for j in data["jobs"]:
        j["user_id"], j["user_name"] = ME.uid, ME.name
    by_id[8]["user_id"], by_id[8]["user_name"] = ALICE.uid, ALICE.name
    if change is not None:
        change(by_id)
    data["jobs"] = list(by_id.values())
    return json.dumps(data)


def running(job: dict, nodes: str, *gres: str, start: int = 1796122507) -> None:
    job.update(job_state="RUNNING", state_reason="None", nodes=nodes, gres_detail=list(gres), start_time=start)


def new_job(job_id: int, tres_per_node: str, state: str = "PENDING", user: User = ME) -> dict:
    template = json.loads((SLURM / "22.05-squeue.json").read_text())["jobs"][7]  # job 8, pending
    return {**template, "job_id": job_id, "name": f"job{job_id}", "tres_per_node": tres_per_node, "job_state": state,
            "user_id": user.uid, "user_name": user.name, "node_count": 1, "cpus": 1, "tasks": 1,
            "submit_time": 1796122502}  # fmt: skip


class Lab:
    """The fake cluster, its source and the job back end, polled and ticked on demand."""

    def __init__(self, tmp_path: Path) -> None:
        conf = tmp_path / "slurm.conf"
        conf.write_text("ClusterName=testlab\n")
        self.fake = FakeSlurm({**captured_answers(SLURM), JOBS_JSON: squeue()})
        self.t = T0
        self.source = SlurmSource({}, conf_path=conf, runner=self.fake, nvml=None, clock=lambda: self.t)
        self.jobs = SlurmJobs(self.source, wall=lambda: self.t)
        self.tick()

    def tick(self, change: Callable[[dict[int, dict]], None] | None = None):
        if change is not None:
            self.fake.answers[JOBS_JSON] = squeue(change)
        self.t += 5
        return self.jobs.tick(self.source.poll())

    def answer(self, argv: list[str], stdout: str = "", stderr: str = "", code: int = 0) -> None:
        self.fake.answers[tuple(argv)] = Completed(code, stdout, stderr)

    def calls(self, program: str) -> list[tuple[str, ...]]:
        return self.fake.argvs(program)


@pytest.fixture
def lab(tmp_path) -> Lab:
    return Lab(tmp_path)


# -- reading -------------------------------------------------------------------------------------------------------
def test_it_is_a_job_backend(lab):
    assert isinstance(lab.jobs, JobBackend)
    assert (lab.jobs.kind, lab.jobs.cluster, lab.jobs.owner) == ("slurm", "slurm:testlab", False)


def test_records_of_the_captured_jobs(lab):
    recs = {r.id: r for r in lab.jobs.list()}
    assert list(recs) == list(range(1, 11))
    assert {i: r.state for i, r in recs.items()} == {
        1: COMPLETED, 2: RUNNING, 3: RUNNING, 4: RUNNING, 5: RUNNING, 6: RUNNING, 7: RUNNING, 8: PENDING,
        9: CANCELLED, 10: FAILED,
    }  # fmt: skip
    assert {i: r.allocation_text for i, r in recs.items() if r.running} == {
        2: "node01:0,1", 3: "node01:2", 4: "node03:0[1g.10gb GI 0]", 5: "node04:0[MPS 50%]",
        6: "node04:0[MPS 50%]", 7: "node02:0,1 node03:1[1g.10gb GI 0],2[2g.20gb GI 0]",
    }  # fmt: skip
    assert recs[2].options == "--gres=gpu:a100:2 --time=UNLIMITED --job-name=whole-a100x2"
    assert recs[3].options == "--gpus=1 --time=UNLIMITED --job-name=count-gpus1"
    assert recs[7].options == "--gres=gpu:2 --nodes=2 --time=UNLIMITED --job-name=two-node"
    assert (recs[4].granularity, recs[5].granularity, recs[8].request.describe()) == (
        "MIG", "MPS", "4 a100 GPU(s) per node on 2 node(s)",
    )  # fmt: skip
    assert (recs[8].reason, recs[8].user, recs[8].uid) == ("Resources", "alice", ALICE.uid)
    assert (recs[9].end_reason, recs[9].allocation, recs[9].start_time) == ("cancelled", None, None)
    assert recs[10].end_reason == "failed (BadConstraints)"
    # the lab's CPU-only probe job: its CPUs on its node, as the what-if queues a CPU-only job
    assert recs[1].options == "--cpus-per-task=1 --nodes=1 --time=365-00:00:00 --job-name=lab-probe"
    assert recs[1].request.kind == "cpu"
    out = recs[10].stdout_path or ""  # the lab's temporary folder, different in every capture
    assert re.fullmatch(r"/tmp/slurm-lab-[^/]+/work/slurm-10\.out", out) and recs[2].stdout_path == "/dev/null"
    assert all(r.runner == "slurm" and r.cluster == "slurm:testlab" for r in recs.values())
    assert [r.id for r in lab.jobs.list(states=(PENDING, RUNNING))] == [2, 3, 4, 5, 6, 7, 8]
    assert [r.id for r in lab.jobs.list(limit=2)] == [9, 10]
    assert [r.id for r in lab.jobs.list(user="alice")] == [8]


def test_state_changes_become_events(lab):
    assert lab.jobs.changed() is True and lab.jobs.changed() is False
    first = lab.tick()
    assert first.events == () and first.owner is False and lab.jobs.changed() is False

    def change(jobs: dict[int, dict]) -> None:
        jobs[2].update(job_state="COMPLETED", gres_detail=[], end_time=1796122512)  # squeue drops gres_detail
        running(jobs[8], "node02", "gpu:a100:2(IDX:2-3)")
        del jobs[3]  # gone from squeue before its end was seen
        jobs[11] = new_job(11, "gres:gpu:a100:1")

    result = lab.tick(change)
    got = [(e.kind, e.job_id, e.message, e.node, e.gpus) for e in result.events]
    options = "--gres=gpu:a100:1 --time=UNLIMITED --job-name=job11"
    assert got == [
        ("job_ended", "2", "job 2 completed, exit code 0", "node01", (0, 1)),
        ("job_started", "8", "job 8 started on node02:2,3", "node02", (2, 3)),
        ("job_submitted", "11", f"job 11 submitted by {ME.name} ({options})", None, ()),
        ("job_ended", "3", "job 3 left Slurm's queue (end state not seen)", "node01", (2,)),
    ]
    assert lab.jobs.get(2).record.allocation_text == "node01:0,1"  # kept from when it ran
    assert lab.jobs.changed() is True
    assert lab.tick(change).events == ()  # nothing new


# -- submitting ----------------------------------------------------------------------------------------------------
SBATCH_OK = "42\n"


def test_submit_runs_sbatch_by_argv_and_reports_its_answer(lab):
    lab.answer(
        ["sbatch", "--parsable", "--chdir=/work/x", "--gres=gpu:a100:2", "-t", "30", "-J", "train",
         "--wrap=python train.py --note 'a b; rm -rf ~'"],
        SBATCH_OK,
    )  # fmt: skip
    rec = lab.jobs.submit("--gres=gpu:a100:2 -t 30 -J train", ["python", "train.py", "--note", "a b; rm -rf ~"],
                          cwd="/work/x")  # fmt: skip
    (argv,) = lab.calls("sbatch")
    assert shlex.split(argv[-1].removeprefix("--wrap=")) == ["python", "train.py", "--note", "a b; rm -rf ~"]
    assert (rec.id, rec.state, rec.name, rec.runner, rec.cwd) == (42, PENDING, "train", "slurm", "/work/x")
    assert rec.options == "--gres=gpu:a100:2 -t 30 -J train"
    assert rec.command == ("python", "train.py", "--note", "a b; rm -rf ~")
    assert [r.id for r in lab.jobs.list(states=[PENDING])] == [8, 42]  # listed before squeue shows it
    (event,) = lab.tick().events  # a poll whose squeue ran before sbatch returned: job 42 is not in it
    assert (event.kind, event.job_id, event.message) == ("job_submitted", "42", "Submitted batch job 42")
    assert dict(event.data)["argv"] == shlex.join(argv)
    assert lab.jobs.get(42).record.state == PENDING
    lab.t += 120  # still not listed two minutes after: it is gone
    (gone,) = lab.tick().events
    assert (gone.kind, gone.message) == ("job_ended", "job 42 left Slurm's queue (end state not seen)")


def test_prediction_beside_slurms_placement(lab):
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--gres=gpu:a100:2", "-J", "two", "--wrap=sleep 60"], SBATCH_OK)
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--job-name=sleep", "--gres=gpu:a100:1", "--wrap=sleep 60"],
               "43\n")  # fmt: skip
    lab.jobs.submit("--gres=gpu:a100:2 -J two", ["sleep", "60"], cwd="/w")
    lab.jobs.submit("--gres=gpu:a100:1", ["sleep", "60"], cwd="/w")

    def change(jobs: dict[int, dict]) -> None:
        jobs[42] = {**new_job(42, "gres:gpu:a100:2"), "name": "two"}
        running(jobs[42], "node02", "gpu:a100:2(IDX:2-3)")
        jobs[43] = new_job(43, "gres:gpu:a100:1")
        running(jobs[43], "node01", "gpu:a100:1(IDX:3)")

    events = {e.job_id: e.message for e in lab.tick(change).events if e.kind == "job_started"}
    assert events["42"] == "job 42 started on node02:2,3; predicted node02:2,3; Slurm placed node02:2,3 (same)"
    assert events["43"] == "job 43 started on node01:3; predicted node01:3; Slurm placed node01:3 (same)"
    detail = lab.jobs.get(42)
    assert detail.record.options == "--gres=gpu:a100:2 -J two" and detail.record.name == "two"
    assert detail.explanation.endswith("predicted node02:2,3; Slurm placed node02:2,3 (same)")

    def moved(jobs: dict[int, dict]) -> None:
        change(jobs)
        jobs[43]["job_state"] = "PENDING"  # requeued ...

    lab.tick(moved)

    def elsewhere(jobs: dict[int, dict]) -> None:
        change(jobs)
        running(jobs[43], "node02", "gpu:a100:1(IDX:3)")  # ... and started elsewhere

    (started,) = [e for e in lab.tick(elsewhere).events if e.kind == "job_started"]
    assert started.message == "job 43 started on node02:3; predicted node01:3; Slurm placed node02:3 (differs)"


def test_prediction_of_a_waiting_request(lab):
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--job-name=sleep", "--gres=gpu:1g.10gb:1", "--wrap=sleep 1"],
               SBATCH_OK)  # fmt: skip
    lab.jobs.submit("--gres=gpu:1g.10gb:1", ["sleep", "1"], cwd="/w")
    # Behind job 8, which waits for resources, Slurm says Priority (as the lab's Slurm 22.05 does), and so does gputui.
    lab.tick(lambda jobs: jobs.update({42: {**new_job(42, "gres:gpu:1g.10gb:1"), "state_reason": "Priority"}}))
    text = lab.jobs.get(42).explanation
    assert text.startswith(
        "Slurm: Priority (jobs of higher priority are ahead of it); gputui predicted at submit: would wait (Priority)"
    )


def test_submit_a_batch_script(lab, tmp_path):
    script = tmp_path / "train job.sh"
    script.write_text("#!/bin/sh\n#SBATCH --gres=gpu:a100:1\npython train.py\n")
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "-t", "5", str(script), "x", "y z"], "44;testlab\n")
    rec = lab.jobs.submit("-t 5", ["x", "y z"], script=script, cwd="/w")
    assert (rec.id, rec.script_path, rec.command, rec.request.gpu_type) == (44, str(script), ("x", "y z"), "a100")


@pytest.mark.parametrize(
    ("options", "command", "error", "message"),
    [
        ("--gres=gpu:a100:x", ["true"], RequestError, "--gres: count 'x' is not a whole number"),
        (
            "--gpu-ids=0 -w node01",
            ["true"],
            RequestError,
            "--gpu-ids: Slurm cannot be asked for particular GPU indices",
        ),
        ("--gres=gpu:1 --wait", ["true"], RequestError, "--wait: not available here"),
        ("--gres=gpu:1", [], JobError, "no command"),
    ],
)
def test_refused_before_sbatch(lab, options, command, error, message):
    with pytest.raises(error) as e:
        lab.jobs.submit(options, command)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
    assert lab.calls("sbatch") == []


def test_options_gputui_does_not_model_go_to_sbatch_untouched_and_the_prediction_lists_them(lab):
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--job-name=true", "--gres=gpu:1", "--signal", "B:USR1@60",
                "--wrap=true"], "45;testlab\n")  # fmt: skip
    rec = lab.jobs.submit("--gres=gpu:1 --signal B:USR1@60", ["true"], cwd="/w")
    assert rec.id == 45 and rec.request.ignored == ("--signal",)
    assert lab.jobs.preview("--gres=gpu:1 --signal=B:USR1@60").request.ignored == ("--signal",)


def test_submit_for_another_user_is_refused(lab):
    with pytest.raises(JobRefused, match="cannot submit for bob"):
        lab.jobs.submit("--gres=gpu:1", ["true"], user=BOB if ME.uid != BOB.uid else ALICE)
    assert lab.calls("sbatch") == []


@pytest.mark.parametrize(
    ("heading", "options"),
    [
        ("impossible request (5 A100 on one node)", "--gres=gpu:a100:5"),
        ("invalid gres spec (gpu and mps together)", "--gres=mps:10"),  # passes gputui's parser, Slurm refuses it
    ],
)
def test_slurms_refusal_is_shown_as_it_came(lab, heading, options):
    stderr = errors_fixture(heading)
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--job-name=sleep", options, "--wrap=sleep 300"], "", stderr, 1)
    with pytest.raises(SlurmError) as e:
        lab.jobs.submit(options, ["sleep", "300"], cwd="/w")
    assert str(e.value) == stderr.strip()
    (event,) = lab.tick().events
    assert (event.kind, event.message) == ("note", stderr.strip())
    assert stderr.startswith("sbatch: error: ")


def test_unreadable_sbatch_answer(lab):
    lab.answer(["sbatch", "--parsable", "--chdir=/w", "--job-name=true", "--gres=gpu:1", "--wrap=true"], "ok?\n")
    with pytest.raises(SlurmError, match="sbatch answered 'ok\\?'; expected a job id"):
        lab.jobs.submit("--gres=gpu:1", ["true"], cwd="/w")


# -- cancel, requeue, priority -------------------------------------------------------------------------------------
def test_cancel_runs_scancel_and_shows_its_answer(lab):
    lab.answer(["scancel", "--verbose", "2"], "", "scancel: Terminating job 2\n")
    rec = lab.jobs.cancel(2)
    assert lab.calls("scancel") == [("scancel", "--verbose", "2")]
    assert (rec.state, rec.stop_requested) == (RUNNING, "cancel")
    (event,) = lab.tick().events
    assert (event.kind, event.job_id, event.message) == ("note", "2", "scancel: Terminating job 2")
    result = lab.tick(lambda jobs: jobs[2].update(job_state="CANCELLED", gres_detail=[], end_time=1796122516))
    (ended,) = result.events
    assert (ended.kind, ended.message) == ("job_cancelled", "job 2 cancelled, exit code 0")


def test_cancel_refusals_happen_before_scancel(lab):
    with pytest.raises(JobRefused, match="job 8 belongs to alice; only its owner may cancel it"):
        lab.jobs.cancel(8, user=BOB)
    with pytest.raises(JobRefused, match=re.escape("job 9 has already ended (cancelled)")):
        lab.jobs.cancel(9)
    with pytest.raises(JobNotFound, match="no job 999 in Slurm's queue"):
        lab.jobs.cancel(999)
    assert lab.calls("scancel") == []


def test_scancel_error_with_exit_status_zero_is_an_error(lab):
    captured = errors_fixture("scancel -v of an unknown job id").replace("999999", "8")
    lab.answer(["scancel", "--verbose", "8"], "", captured, 0)
    with pytest.raises(SlurmError) as e:
        lab.jobs.cancel(8, user=ALICE)
    assert str(e.value) == "scancel: error: Kill job error on job id 8: Invalid job id specified"
    assert [e.message for e in lab.tick().events] == [str(e.value)]


def test_requeue(lab):
    lab.answer(["scontrol", "requeue", "2"])
    rec = lab.jobs.requeue(2)
    assert lab.calls("scontrol")[-1] == ("scontrol", "requeue", "2") and rec.stop_requested == "requeue"
    with pytest.raises(JobRefused, match="job 8 is already pending"):
        lab.jobs.requeue(8, user=ALICE)


def test_priority_moves_through_nice(lab):
    prio = lab.jobs.get(8).record.priority
    asked = lab.calls("scontrol")  # reading the job's detail asked for its batch script
    assert prio == 4294901752
    with pytest.raises(JobRefused, match="only administrators"):
        lab.jobs.set_priority(8, prio + 5, user=ALICE)
    assert lab.calls("scontrol") == asked  # refused before Slurm is called
    lab.answer(["scontrol", "update", "JobId=8", "Nice=10"])
    rec = lab.jobs.set_priority(8, prio - 10, user=ALICE)
    assert lab.calls("scontrol") == [*asked, ("scontrol", "update", "JobId=8", "Nice=10")]
    assert rec.priority == prio - 10
    with pytest.raises(JobRefused, match="job 2 is running"):
        lab.jobs.set_priority(2, 0)


# -- what-if -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "text"),
    [
        ("--gres=gpu:a100:1", f"would start now on node01:3{AHEAD}"),
        ("--gres=gpu:a100:2", f"would start now on node02:2,3{AHEAD}"),
        ("--gres=gpu:3g.40gb:1", f"would start now on node03:3{AHEAD}"),  # a MIG-typed GRES is a GPU type to Slurm
        (
            "--gres=mps:50",
            "would wait (Priority): needs 50 % MPS share on 1 GPU(s) of one node; node04 has 2 MPS GPU(s) ready "
            "(GPU 0 has 100 % of the 100 % cap in use)",
        ),  # Slurm 22.05 only tries GPU 0, which is full (measured on the lab: the differential's seq 32)
        (
            "--gres=gpu:1g.10gb:1",
            "would wait (Priority): needs 1 1g.10gb GPU(s) per node on 1 node(s); the cluster has 0 free; node03 has "
            "0 free (GPU 0 held by job 4; GPU 1 held by job 7)",
        ),
    ],
)
def test_preview_on_the_captured_cluster(lab, options, text):
    assert lab.jobs.preview(options).text.startswith(text)
    assert lab.calls("sbatch") == []


def test_preview_refuses_what_slurm_cannot_do(lab):
    with pytest.raises(RequestError, match="--gpu-ids"):
        lab.jobs.preview("--gpu-ids=1 -w node01")


def test_explain_a_pending_job_of_someone_else(lab):
    why = lab.jobs.explain(8)
    assert (why.state, why.reason) == (PENDING, "Resources")
    assert why.text.startswith(
        "Slurm: Resources (waiting for resources); gputui now: would wait (Resources): needs 4 a100"
    )


def test_output_tail_of_a_job(lab, tmp_path):
    out = tmp_path / "slurm-2.out"
    out.write_text("epoch 1\nepoch 2\n")
    lab.tick(lambda jobs: jobs[2].update(standard_output=str(tmp_path / "slurm-%j.out")))
    detail = lab.jobs.get(2)
    assert detail.stdout_tail == "epoch 1\nepoch 2" and detail.record.stdout_path == str(out)
    assert detail.explanation.startswith("running on node01:0,1 for ")


def test_open_service_gives_the_slurm_backend(lab, tmp_path):
    from gputui.cli.job_session import open_service

    service = open_service("slurm", lab.source, root=tmp_path / "state")
    assert isinstance(service, SlurmJobs) and service.cluster == "slurm:testlab"
    assert service.store is not None and service.store.count() == 0  # Slurm keeps the jobs; the store, predictions
    service.close()
    assert os.getuid() == ME.uid


def test_the_what_if_queues_the_jobs_already_waiting(lab):
    def smaller(jobs: dict[int, dict]) -> None:
        jobs[8].update(tres_per_node="gres:gpu:a100:2", node_count=1)  # would fit node02's two free A100s
        jobs[11] = {**new_job(11, "gres:gpu:a100:4"), "state_reason": "Dependency", "dependency": "afterok:2"}

    lab.tick(smaller)
    # job 8 (ahead in Slurm's queue) takes node02:2,3 first; job 11 waits on a dependency and is left out
    assert lab.jobs.preview("--gres=gpu:a100:2").text.startswith("would wait (Resources)")
    assert lab.jobs.preview("--gres=gpu:a100:1").text == f"would start now on node01:3{AHEAD}"
    assert lab.jobs.explain(8).text.endswith("gputui now: would start now on node02:2,3 (2 CPUs)")  # cpus=2, 1 node
    assert lab.jobs.explain(11).text.startswith("Slurm: Dependency (waiting for its dependency); gputui now: ")
