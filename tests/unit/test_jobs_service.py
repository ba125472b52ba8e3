"""The job service with the simulated runner: validation, the queue's clock, snapshots with jobs drawn in,
cancel / requeue / priority, refusals, previews, and two processes sharing one queue."""

from __future__ import annotations

import pytest
from jobs_helpers import ALICE, BOB, T0, machine, other_process, sim_service

from gputui.core.scheduler.errors import RequestError
from gputui.jobs.errors import JobError, JobNotFound, JobRefused
from gputui.jobs.overlay import SIM_PID_BASE, sim_pid
from gputui.jobs.records import CANCELLED, COMPLETED, PENDING, RUNNING


@pytest.fixture
def svc(tmp_path):  # type: ignore[no-untyped-def]
    s = sim_service(tmp_path)
    s.tick(machine(T0))
    yield s
    s.close()


def kinds(result) -> list[tuple[str, str | None]]:  # type: ignore[no-untyped-def]
    return [(e.kind, e.job_id) for e in result.events]


def test_bad_requests_are_refused_with_the_parsers_line_and_store_nothing(svc) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RequestError, match="unsupported option --bogus"):
        svc.submit("--bogus=1", ["x"])
    with pytest.raises(RequestError, match="cannot split options"):
        svc.submit("--job-name='unbalanced", ["x"])
    with pytest.raises(RequestError, match="--gpus=9: the cluster has 3 such GPUs"):
        svc.submit("--gpus=9", ["x"])
    with pytest.raises(RequestError, match="--dependency: no job 42"):
        svc.submit("--gpus=1 --dependency=afterok:42", ["x"])
    with pytest.raises(JobError, match="no command"):
        svc.submit("--gpus=1")
    assert svc.list() == []


def test_a_simulated_job_runs_for_its_time_on_the_sources_clock(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("--gpus=1 -t 2:00 -J train", ["python", "train.py"])
    assert job.state == PENDING and job.submit_time == T0
    r = svc.tick(machine(T0 + 1))
    assert kinds(r) == [("job_submitted", str(job.id)), ("job_started", str(job.id))]
    rec = svc.get(job.id).record
    assert (rec.state, rec.start_time, rec.sim_end, rec.allocation_text) == (RUNNING, T0 + 1, T0 + 121, "testnode:0")
    assert svc.tick(machine(T0 + 120)).events == ()  # the wall clock plays no part
    r = svc.tick(machine(T0 + 500))
    assert kinds(r) == [("job_ended", str(job.id))]
    rec = svc.get(job.id).record
    assert (rec.state, rec.end_time, rec.exit_code) == (COMPLETED, T0 + 121, 0)


def test_running_jobs_appear_in_the_snapshot_on_their_gpus_mig_devices_and_mps(svc) -> None:  # type: ignore[no-untyped-def]
    whole = svc.submit("--gpus=1 --mem-per-gpu=10G", ["python", "train.py"])
    mig = svc.submit("--gres=gpu:3g.20gb:1", ["python", "mig.py"])
    mps = svc.submit("--gres=mps:40 --mem-per-gpu=3000M", ["python", "serve.py"])
    snap = svc.tick(machine(T0 + 1)).snapshot
    g0, g2, g3 = (snap.nodes[0].gpus[i] for i in (0, 2, 3))
    (p,) = g0.processes
    assert p.pid >= SIM_PID_BASE and (p.type, p.user, p.command, p.used_memory_mib) == (
        "C", "alice", "python train.py", 10240,
    )  # fmt: skip
    assert g0.memory_used_mib == 10240 and 80 <= g0.utilization_gpu <= 96  # type: ignore[operator]
    (q,) = g2.processes
    assert (q.type, q.gi_id, q.ci_id, q.command) == ("C", 1, 0, "python mig.py")
    assert next(gi for gi in g2.gpu_instances if gi.gi_id == 1).memory_used_mib == q.used_memory_mib
    assert g2.utilization_gpu is None  # a MIG GPU reports no utilization: left N/A, not made up
    (m,) = g3.processes
    assert (m.type, m.used_memory_mib) == ("M+C", 3000)
    assert g3.mps is not None and [(c.pid, c.active_thread_percentage) for c in g3.mps.clients] == [(m.pid, 40)]
    assert 0 < g3.utilization_gpu <= 40  # type: ignore[operator]
    assert {p.pid, q.pid, m.pid} and len({p.pid, q.pid, m.pid}) == 3
    assert [r.state for r in svc.list()] == [RUNNING] * 3 and {whole.id, mig.id, mps.id} == {r.id for r in svc.list()}
    # the scheduler does not mistake the drawn processes for foreign load when it sees them again
    svc.tick(snap.with_time(T0 + 2))
    assert [r.state for r in svc.list()] == [RUNNING] * 3


def test_a_jump_forward_runs_the_queue_in_time_order(svc) -> None:  # type: ignore[no-untyped-def]
    ids = [svc.submit("--gpus=2 -t 1:00", ["step"]).id for _ in range(3)]
    svc.tick(machine(T0))
    svc.tick(machine(T0 + 200))
    recs = [svc.get(i).record for i in ids]
    assert [(r.start_time, r.end_time) for r in recs] == [(T0, T0 + 60), (T0 + 60, T0 + 120), (T0 + 120, T0 + 180)]


def test_a_backward_seek_pauses_the_queue_until_the_replay_reaches_its_clock(svc) -> None:  # type: ignore[no-untyped-def]
    job = svc.submit("--gpus=1 -t 1:40", ["x"])
    svc.tick(machine(T0 + 50))
    assert svc.get(job.id).record.start_time == T0 + 50
    r = svc.tick(machine(T0 + 10))  # the replay was rewound by 40 s: the queue waits at its clock
    assert r.clock == T0 + 50 and r.paused and svc.get(job.id).record.running
    assert sim_pid(job.id, 0) not in {p.pid for n in r.snapshot.nodes for g in n.gpus for p in g.processes}
    late = svc.submit("--gpus=1 -t 1:00", ["y"])
    assert svc.get(late.id).record.submit_time == T0 + 50  # on the queue's clock, not the old frame's
    r = svc.tick(machine(T0 + 40))
    assert r.paused and svc.get(late.id).record.pending  # judged against no frame older than the clock
    r = svc.tick(machine(T0 + 149))  # the replay caught up and passed: the clock follows the frame again
    assert not r.paused and r.clock == T0 + 149 and svc.get(job.id).record.running
    r = svc.tick(machine(T0 + 151))
    assert ("job_ended", str(job.id)) in kinds(r) and r.clock == T0 + 151
    assert svc.get(job.id).record.end_time == T0 + 150


def test_cancel_pending_and_running_and_the_refusals(svc) -> None:  # type: ignore[no-untyped-def]
    a = svc.submit("--gpus=2", ["a"])
    b = svc.submit("--gpus=2", ["b"])
    svc.tick(machine(T0 + 1))
    assert svc.get(b.id).record.reason == "Resources"
    with pytest.raises(JobNotFound, match="^no job 99$"):
        svc.cancel(99)
    with pytest.raises(JobRefused, match=f"^job {a.id} belongs to alice; only its owner may cancel it$"):
        svc.cancel(a.id, user=BOB)
    assert svc.get(a.id).record.running  # the refusal changed nothing
    assert svc.cancel(b.id).state == CANCELLED  # pending: at once
    assert svc.cancel(a.id).stop_requested == "cancel"
    r = svc.tick(machine(T0 + 2))
    assert kinds(r) == [("job_cancelled", str(b.id)), ("job_cancelled", str(a.id))]
    assert svc.get(a.id).record.state == CANCELLED
    with pytest.raises(JobRefused, match="already ended"):
        svc.cancel(a.id)


def test_priority_and_requeue(svc) -> None:  # type: ignore[no-untyped-def]
    first = svc.submit("--gpus=2 -t 1:00", ["first"])
    low = svc.submit("--gpus=2 -t 1:00", ["low"])
    high = svc.submit("--gpus=2 -t 1:00", ["high"])
    svc.tick(machine(T0))
    with pytest.raises(JobRefused, match="belongs to alice"):
        svc.set_priority(high.id, 10, user=BOB)
    svc.set_priority(high.id, 10)
    svc.tick(machine(T0 + 61))
    assert svc.get(high.id).record.running and svc.get(low.id).record.pending
    svc.requeue(first.id)  # ended: back in the queue, with its place by job id as in Slurm
    assert svc.get(first.id).record.state == PENDING
    svc.tick(machine(T0 + 122))
    assert svc.get(first.id).record.running and svc.get(low.id).record.pending


def test_preview_says_where_or_why_and_stores_nothing(svc) -> None:  # type: ignore[no-untyped-def]
    svc.submit("--gpus=3 -t 10:00", ["hog"])  # every GPU that can be had whole (the MPS one too, while unused)
    svc.tick(machine(T0))
    now = svc.preview("--gres=gpu:3g.20gb:1")
    assert now.starts_now and now.text == "would start now on testnode:2[3g.20gb GI 1]"
    assert now.environment["testnode"]["CUDA_VISIBLE_DEVICES"] == "MIG-test-1"
    wait = svc.preview("--gpus=1 -t 5:00")
    assert not wait.starts_now and wait.reason == "Resources"
    assert wait.text.startswith("would wait (Resources): needs 1 GPU(s)")
    assert "expected to start in 00:10:00 at the latest" in wait.text
    with pytest.raises(RequestError, match="unsupported option"):
        svc.preview("--nope")
    assert len(svc.list()) == 1


def test_explain_a_waiting_job(svc) -> None:  # type: ignore[no-untyped-def]
    svc.submit("--gpus=3 -t 10:00", ["hog"])
    waiting = svc.submit("--gpus=1", ["w"])
    svc.tick(machine(T0))
    why = svc.explain(waiting.id)
    assert why.reason == "Resources" and "GPU 0 held by job 1" in why.text
    detail = svc.get(waiting.id)
    assert detail.reason == "Resources" and detail.record.options == "--gpus=1" and detail.stdout_tail == ""


def test_a_second_process_submits_and_the_owner_runs_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tui = sim_service(tmp_path)
    assert tui.tick(machine(T0)).owner
    cli = sim_service(tmp_path, user=BOB, process=other_process())
    r = cli.tick(machine(T0))
    assert not r.owner and not cli.owner  # the owner process is alive: the CLI only writes requests
    job = cli.submit("--gpus=1", ["from-cli"])
    assert cli.get(job.id).record.state == PENDING
    r = tui.tick(machine(T0 + 1))
    assert kinds(r) == [("job_submitted", str(job.id)), ("job_started", str(job.id))]
    assert cli.get(job.id).record.running and cli.get(job.id).record.user == "bob"
    with pytest.raises(JobRefused):
        tui.cancel(job.id)  # tui's user is alice
    cli.cancel(job.id)
    tui.tick(machine(T0 + 2))
    assert cli.get(job.id).record.state == CANCELLED
    tui.close()  # the queue is free again: the next process to tick takes it over
    assert cli.tick(machine(T0 + 3)).owner
    cli.close()


def test_a_new_session_continues_from_the_stored_clock(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first = sim_service(tmp_path, user=ALICE)
    first.tick(machine(T0))
    job = first.submit("--gpus=1 -t 1:00", ["x"])
    first.tick(machine(T0 + 30))
    first.close()
    second = sim_service(tmp_path, user=ALICE)
    r = second.tick(machine(T0 - 500))  # a replay that starts earlier again: the queue waits at its clock
    assert r.clock == T0 + 30 and r.paused and second.get(job.id).record.running
    r = second.tick(machine(T0 + 89))  # it started at T0 + 30 for one minute
    assert not r.paused and second.get(job.id).record.running
    r = second.tick(machine(T0 + 91))
    assert kinds(r) == [("job_ended", str(job.id))]
    second.close()


def test_an_idle_queue_follows_the_replay_backwards(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = sim_service(tmp_path, user=ALICE)
    job = svc.submit("--gpus=1 -t 0:10", ["x"])
    svc.tick(machine(T0 + 100))
    svc.tick(machine(T0 + 120))
    assert svc.get(job.id).record.state == COMPLETED
    r = svc.tick(machine(T0))  # nothing waits or runs: nothing to protect, so no pause
    assert r.clock == T0 and not r.paused
    later = svc.submit("--gpus=1", ["y"])
    assert svc.get(later.id).record.submit_time == T0
    svc.close()


def test_an_empty_snapshot_fails_no_job(svc) -> None:  # type: ignore[no-untyped-def]
    from gputui.core.model import ClusterSnapshot

    job = svc.submit("--gpus=1 -t 10:00", ["x"])
    svc.tick(machine(T0))
    svc.tick(ClusterSnapshot(T0 + 1, ()))
    assert svc.get(job.id).record.running


def test_recorded_load_on_a_held_gpu_does_not_evict_the_job_but_a_lost_gpu_fails_it(svc) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from gputui.core.model import ProcessInfo

    whole = svc.submit("--gpus=1 -t 10:00", ["w"])
    mig = svc.submit("--gres=gpu:3g.20gb:1 -t 10:00", ["m"])
    svc.tick(machine(T0))
    base = machine(T0 + 1)
    gpus = list(base.nodes[0].gpus)
    gpus[0] = replace(gpus[0], processes=(ProcessInfo(4242, "C", 5000, "carol", "recorded job"),))
    gpus[2] = replace(gpus[2], processes=(ProcessInfo(4343, "C", 5000, "carol", "recorded", gi_id=1, ci_id=0),))
    busy = replace(base, nodes=(replace(base.nodes[0], gpus=tuple(gpus)),))
    svc.tick(busy)
    assert svc.get(whole.id).record.running and svc.get(mig.id).record.running
    gpus[0] = replace(gpus[0], lost=True)
    r = svc.tick(replace(busy, timestamp=T0 + 2, nodes=(replace(base.nodes[0], gpus=tuple(gpus)),)))
    assert kinds(r) == [("job_failed", str(whole.id))]
    rec = svc.get(whole.id).record
    assert (rec.state, rec.end_reason) == ("FAILED", "its GPUs are gone (lost, or the MIG instance was destroyed)")
    assert svc.get(mig.id).record.running
