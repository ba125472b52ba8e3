"""`gputui submit / queue / cancel / explain` on the same store: squeue-like output, exit codes, and one clear
line (never a traceback) for every mistake."""

from __future__ import annotations

import json
import sqlite3

import pytest
from jobs_helpers import BOB

from gputui.cli import job_session as session_mod
from gputui.cli import main
from gputui.jobs.records import current_user
from gputui.jobs.store import JobStore


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(session_mod, "BUSY_TIMEOUT_S", 0.2)
    return tmp_path / "state"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


#: what every job command on the demo says, with the queue's clock (a fresh queue starts at the first frame)
SIMULATED = (
    "gputui: simulated on the bundled demo recording (synthetic) at 2026-11-02 09:00:00 UTC: nothing is executed\n"
)


def test_without_a_driver_job_commands_refuse_instead_of_falling_back_to_the_demo(capsys) -> None:  # type: ignore[no-untyped-def]
    for argv in (["submit", "--gpus=1", "--", "sleep", "600"], ["queue"], ["plan", "--", "--gpus=1"], ["cancel", "1"]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        line = one_line_error(err)
        assert line.startswith("gputui: NVML not available") and "--source demo" in line, line
    code, out, _ = run(capsys, "queue", "--source", "demo", "--all")
    assert out.count("\n") == 1  # nothing was queued anywhere


def one_line_error(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def test_submit_queue_explain_cancel(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "submit", "--source", "demo", "--gpus=1", "-t", "5:00", "-J", "train", "--",
                         "python", "train.py")  # fmt: skip
    assert (code, err) == (0, SIMULATED)
    assert out.splitlines() == ["Submitted batch job 1", "job 1 is running on node04:0"]
    code, out, _ = run(capsys, "submit", "--source", "demo", "--parsable", "--gpus=4", "-N1", "--", "python", "big.py")
    assert (code, out) == (0, "2\n")
    code, out, _ = run(capsys, "queue", "--source", "demo")
    assert code == 0
    me = f"{current_user().name[:8]:<8}"
    assert out.splitlines() == [
        "   JOBID NAME         USER     ST       TIME NODES GRAN   NODELIST(REASON)",
        f"       1 train        {me}  R       0:00     1 node   node04:0",
        f"       2 python       {me} PD       0:00     1 node   (Resources)",
    ]
    code, out, _ = run(capsys, "explain", "--source", "demo", "2")
    assert code == 0 and out.startswith(
        "job 2 PENDING (Resources): needs 4 GPU(s) on 1 node(s); the cluster has 4 free; node01 has 3 free"
    )
    assert "  options: --parsable --gpus=4" in out
    code, out, _ = run(capsys, "cancel", "--source", "demo", "2", "1")
    assert (code, out) == (0, "job 2 cancelled\njob 1 cancelled\n")
    code, out, _ = run(capsys, "queue", "--source", "demo", "--json", "--all")
    data = json.loads(out)
    assert data["cluster"] == "replay:demo"
    assert [(j["id"], j["state"], j["granularity"]) for j in data["jobs"]] == [
        (1, "CANCELLED", "node"), (2, "CANCELLED", "node"),
    ]  # fmt: skip
    assert data["jobs"][0]["allocation"]["nodes"][0]["node"] == "node04"


def test_a_batch_script_in_sbatch_form(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "serve.sh"
    script.write_text('#!/bin/bash\n#SBATCH --gres=mps:20\n#SBATCH --job-name=serve\npython serve.py "$1"\n')
    code, out, err = run(capsys, "submit", "--source", "demo", "-t", "10", str(script), "--port", "9000")
    assert (code, err) == (0, SIMULATED)
    assert out.splitlines()[1].startswith("job 1 is running on node04:")
    code, out, _ = run(capsys, "queue", "--source", "demo", "--json")
    (job,) = json.loads(out)["jobs"]
    assert (job["name"], job["granularity"], job["time_limit_s"], job["command"]) == (
        "serve",
        "MPS",
        600,
        ["--port", "9000"],
    )


def test_test_only_previews_and_stores_nothing(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "submit", "--source", "demo", "--test-only", "--gres=gpu:1g.5gb:1")
    assert code == 0 and out.startswith("would start now on node02:0[1g.5gb GI ")
    code, out, _ = run(capsys, "queue", "--source", "demo", "--all")
    assert out.count("\n") == 1  # the header only


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["submit", "--source", "demo", "--bogus", "--", "x"], "gputui: unsupported option --bogus"),
        (["submit", "--source", "demo", "--gpus=99", "--", "x"], "gputui: --gpus=99: the cluster has 6 such GPUs"),
        (["submit", "--source", "demo", "--gpus=1"], "gputui: no command: give one after --, or a batch script"),
        (["submit", "--source", "demo"], "gputui: nothing to submit: give Slurm options and -- COMMAND, or a batch "
                                         "script"),
        (["explain", "--source", "demo", "42"], "gputui: no job 42"),
        (["submit", "--source", "/no/such.gtrec", "--gpus=1", "--", "x"], "gputui: /no/such.gtrec: no such file"),
    ],
)  # fmt: skip
def test_mistakes_are_one_line_and_non_zero(capsys, argv, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, *argv)
    assert code != 0 and out == ""
    assert one_line_error(err) == message


def test_cancel_refuses_unknown_and_other_users_jobs(capsys, state) -> None:  # type: ignore[no-untyped-def]
    run(capsys, "submit", "--source", "demo", "--gpus=4", "--", "mine")
    from gputui.jobs.runners.simulated import SimRunner
    from gputui.jobs.service import JobService

    theirs = JobService(JobStore(state / "jobs.db"), SimRunner(), "replay:demo", user=BOB)
    other = theirs.submit("--gpus=4", ["theirs"])
    theirs.close()
    code, out, err = run(capsys, "cancel", "--source", "demo", "99", str(other.id), "1")
    assert code == 1
    assert out == "job 1 cancelled\n"
    assert err.splitlines() == [
        "gputui: no job 99",
        f"gputui: job {other.id} belongs to bob; only its owner may cancel it",
        SIMULATED.strip(),
    ]
    code, out, _ = run(capsys, "queue", "--source", "demo")
    assert f"{other.id:>8} theirs" in out  # bob's job is untouched


def test_a_locked_store_is_one_clear_line(capsys, state) -> None:  # type: ignore[no-untyped-def]
    run(capsys, "queue", "--source", "demo")  # creates the store
    holder = sqlite3.connect(state / "jobs.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = run(capsys, "submit", "--source", "demo", "--gpus=1", "--", "x")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert line.startswith("gputui: state database is locked by another gputui (") and line.endswith("); try again")
    code, out, _ = run(capsys, "queue", "--source", "demo", "--all")
    assert out.count("\n") == 1  # nothing half-submitted


def test_queue_watch_is_an_agent_that_runs_the_queue(capsys) -> None:  # type: ignore[no-untyped-def]
    import argparse

    from gputui.cli.job_session import open_session
    from gputui.cli.jobs.queue import watch
    from gputui.core.clock import ManualClock

    run(capsys, "submit", "--source", "demo", "--gpus=1", "-t", "0:02", "--", "short")
    session = open_session("demo")
    clock = ManualClock()
    session.source.clock = clock  # type: ignore[attr-defined]
    args = argparse.Namespace(states=None, all=True, user=None, json=False)
    try:
        watch(session, args, interval=1.5, iterations=3, sleep=clock.advance)
    finally:
        session.close()
    frames = capsys.readouterr().out.split("replay:demo\n")[1:]
    assert len(frames) == 3
    assert " R " in frames[0].splitlines()[1] and " CD " in frames[2].splitlines()[1]


def test_a_cli_process_submits_into_the_queue_a_running_dashboard_owns(state) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys

    from gputui.cli.source_factory import open_source, snapshot_at
    from gputui.jobs.runners.simulated import SimRunner
    from gputui.jobs.service import JobService

    source = open_source("demo").source
    snap = snapshot_at(source, None)
    source.close()
    state.mkdir(mode=0o700)
    dashboard = JobService(JobStore(state / "jobs.db"), SimRunner(), "replay:demo")
    assert dashboard.tick(snap).owner and dashboard.changed()
    env = {**os.environ, "GPUTUI_STATE_DIR": str(state)}
    argv = [sys.executable, "-m", "gputui", "submit", "--source", "demo", "--gpus=1", "--", "from-shell"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Submitted batch job 1"
    assert "owns this queue" in done.stdout  # the shell only queued it: the dashboard schedules
    assert dashboard.changed()  # the cheap check the dashboard makes every poll
    result = dashboard.tick(snap.with_time(snap.timestamp + 1))
    assert [(e.kind, e.job_id) for e in result.events] == [("job_submitted", "1"), ("job_started", "1")]
    assert dashboard.get(1).record.allocation_text == "node01:3"
    dashboard.close()
