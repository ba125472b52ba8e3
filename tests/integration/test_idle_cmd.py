"""`gputui idle` on the idle fixture recording, on a live (fake NVML) source, and its refusals of bad input."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from gputui.cli import main
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot, ProcessInfo
from gputui.dashboard.radar.evaluate import evaluate_live
from gputui.dashboard.radar.watch import RadarWatch
from gputui.synth.idle_demo import write_idle_demo

IDLE = FIXTURES / "recording" / "idle-held.gtrec"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_fixture_is_what_its_generator_writes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "idle.gtrec"
    write_idle_demo(out)
    assert out.read_bytes() == IDLE.read_bytes(), "regenerate with python -m gputui.synth.idle_demo"


def test_json_lists_the_job_that_holds_a_gpu_at_zero(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "idle", str(IDLE), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["threshold_percent"], data["window_s"], data["held_units"]) == (5, 600.0, 5)
    idle = {(r["node"], r["gpu"], r["unit"]): r for r in data["idle"]}
    assert set(idle) == {("gpu01", 1, "gpu"), ("gpu01", 2, "gpu"), ("gpu02", 1, "mps")}
    bob = idle[("gpu01", 1, "gpu")]
    assert (bob["job"], bob["user"], bob["held_by"], bob["util_basis"]) == ("51002", "bob", "recorded", "gpu")
    assert bob["memory_mib"] > 20_000 and bob["util_max"] < 5 and bob["idle_for_s"] > 800
    assert bob["held_since"] == data["read_from"] + 30  # the job's start event
    carol = idle[("gpu01", 2, "gpu")]  # running before the recording began: known from its process only
    assert (carol["job"], carol["user"], carol["held_by"]) == (None, "carol", "process")
    mps = idle[("gpu02", 1, "mps")]
    assert (mps["job"], mps["util_basis"], mps["memory_mib"]) == ("51004", "gpu-bound", 3000)
    # alice's training is busy; the MIG instance of job 51003 has no reading: unknown, never idle
    assert [(r["node"], r["gpu"], r["unit"], r["job"]) for r in data["unknown"]] == [("gpu02", 0, "mig", "51003")]


def test_the_window_ending_at_a_time_and_a_lower_threshold(capsys) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = run(capsys, "idle", str(IDLE), "--json", "--at", "09:12", "--window", "10m")
    assert {r["job"] for r in json.loads(out)["idle"]} == {"51002", "51004", None}
    _, out, _ = run(capsys, "idle", str(IDLE), "--json", "--at", "09:05", "--window", "10m")
    assert json.loads(out)["idle"] == []
    _, out, _ = run(capsys, "idle", str(IDLE), "--json", "--threshold", "1")
    assert {r["job"] for r in json.loads(out)["idle"]} <= {"51002", "51004"}


def test_text_output_is_a_table_with_the_rows(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "idle", str(IDLE))
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["NODE", "GPU", "JOB", "USER"]
    assert any(line.startswith("gpu01  1 ") and "bob" in line and "20.0 GiB" in line for line in lines)
    assert "3 of 5 held units under 5 % for at least 10m" in out
    assert "1 held unit has no utilisation reading" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--threshold", "0"], "--threshold 0: a whole per cent from 1 to 100"),
        (["--threshold", "x%"], "--threshold x%"),
        (["--window", "ten"], "--window 'ten' is not a duration"),
        (["--at", "25:00"], "'25:00' is not a time of day"),
        (["--at", "2020-01-01"], "--at 2020-01-01: outside the recording"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv: list[str], said: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "idle", str(IDLE), *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and said in err


def test_a_missing_file(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "idle", str(tmp_path / "nope.gtrec"))
    assert code == 2 and "no such file" in err


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


class _Live:
    """A live source whose GPU 0 is held by a process at 0 % and GPU 1 at 90 %; time from the test's clock."""

    description = "live test source"

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock

    def poll(self) -> ClusterSnapshot:
        procs = (ProcessInfo(7, "C", 900, "eve"),)
        gpus = (
            GpuSnapshot(0, utilization_gpu=0, memory_used_mib=900, processes=procs),
            GpuSnapshot(1, utilization_gpu=90, memory_used_mib=900, processes=procs),
        )
        return ClusterSnapshot(1000.0 + self.clock.t, (NodeSnapshot("live", gpus),))

    def close(self) -> None:
        pass


def test_a_live_source_is_watched_for_one_window() -> None:
    clock = _Clock()
    watch = RadarWatch(5, 30.0)
    verdict = evaluate_live(_Live(clock), watch, 30.0, 5.0, clock=clock, sleep=clock.sleep)
    assert verdict.frames == 7 and clock.t == 30.0
    assert [(r.key.gpu, r.holder.user, r.idle_for_s) for r in verdict.result.idle] == [(0, "eve", 30.0)]


def test_live_nvml_with_the_local_queue_names_the_job(capsys, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A real local job holds GPU 0 of a (fake) NVML machine at 0 %: `gputui idle nvml` watches and names it."""
    import os
    import signal
    import time
    from dataclasses import replace

    from jobs_helpers import machine, py

    from gputui.cli import source_factory
    from gputui.jobs.records import RUNNING
    from gputui.jobs.runners.local import LocalRunner
    from gputui.jobs.runners.procstat import host_name, is_alive
    from gputui.jobs.service import JobService
    from gputui.jobs.store import DB_NAME, JobStore
    from gputui.sources.nvml import NvmlSource
    from gputui.sources.nvml_fake import FakeNvml

    state = tmp_path / "state"
    (state / "jobs").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(state))
    base = machine(time.time()).nodes[0]
    node = replace(base, gpus=tuple(replace(g, utilization_memory=0) for g in base.gpus))  # NVML answers both
    monkeypatch.setattr(
        source_factory, "open_nvml", lambda: NvmlSource(FakeNvml(node), node_name=node.name, proc_root=str(tmp_path))
    )
    svc = JobService(JobStore(state / DB_NAME), LocalRunner(state / "jobs"), f"local:{host_name()}")
    try:
        job = svc.submit("--gpus=1", py("import time; time.sleep(30)"))
        svc.tick(machine(time.time()))
        assert svc.store.get(job.id).state == RUNNING
        code, out, err = run(capsys, "idle", "nvml", "--json", "--window", "1s", "--interval", "0.2")
        assert code == 0 and "watching" in err
        rows = json.loads(out)["idle"]
        assert [(r["gpu"], r["job"], r["held_by"]) for r in rows] == [(0, str(job.id), "queue")]
    finally:
        for rec in svc.list([RUNNING]):
            if rec.pid and is_alive(rec.pid, rec.pid_start):
                os.killpg(rec.pid, signal.SIGKILL)
        svc.close()


def test_slurm_allocations_without_telemetry_are_held_but_unknown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Slurm's running jobs (the captured 22.05 lab) hold their GPUs; with no utilisation, nothing is called idle."""
    from gputui.jobs.records import RUNNING
    from gputui.slurm import SlurmJobs, SlurmSource
    from gputui.slurm.fake import FakeSlurm, captured_answers

    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=testlab\n")
    source = SlurmSource({}, conf_path=conf, runner=FakeSlurm(captured_answers(FIXTURES / "slurm")), nvml=None)
    jobs = SlurmJobs(source)
    clock = _Clock()

    def records(snap: ClusterSnapshot):  # type: ignore[no-untyped-def]
        jobs.tick(snap)
        return tuple(jobs.list(states=(RUNNING,)))

    try:
        verdict = evaluate_live(source, RadarWatch(5, 0.0), 0.0, 1.0, records, clock=clock, sleep=clock.sleep)
    finally:
        source.close()
    res = verdict.result
    assert res.idle == () and res.held == len(res.unknown) > 0
    assert {r.holder.origin for r in res.unknown} == {"slurm"}
    assert all(r.holder.job_id and r.gpu_util is None for r in res.unknown)
