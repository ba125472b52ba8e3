"""A simulated (or real) MPS control daemon that stops or restarts fails the jobs holding MPS shares behind it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from jobs_helpers import T0, machine, sim_service

from gputui.cli.job_session import open_service
from gputui.cli.source_factory import open_source
from gputui.core.model import ClusterSnapshot, MpsDaemon
from gputui.jobs.records import FAILED, RUNNING
from gputui.synth.demo_nodes import MPS_RESTART_S


def with_daemon(snap: ClusterSnapshot, t: float, daemon: MpsDaemon) -> ClusterSnapshot:
    """``snap`` at ``t`` with the MPS GPU (the last one) behind ``daemon``."""
    node = snap.nodes[0]
    gpus = (*node.gpus[:-1], replace(node.gpus[-1], mps=daemon))
    return replace(snap, timestamp=t, nodes=(replace(node, gpus=gpus),))


@pytest.fixture
def svc(tmp_path):  # type: ignore[no-untyped-def]
    s = sim_service(tmp_path)
    s.tick(machine(T0))
    yield s
    s.close()


def test_a_daemon_restart_between_two_passes_fails_its_mps_clients_only(svc) -> None:  # type: ignore[no-untyped-def]
    mps = svc.submit("--gres=mps:30 -t 1:00:00", ["python", "serve.py"])
    whole = svc.submit("--gpus=1 -t 1:00:00", ["python", "train.py"])
    svc.tick(machine(T0 + 1))
    assert [svc.get(j.id).record.state for j in (mps, whole)] == [RUNNING, RUNNING]
    restarted = with_daemon(machine(), T0 + 10, MpsDaemon(True, 200, 201, "/tmp/gputui-test-mps-pipe"))
    r = svc.tick(restarted)
    failed = [(e.kind, e.job_id, e.message) for e in r.events]
    why = "lost its MPS server: the control daemon on testnode (pid 100) stopped or restarted"
    assert failed == [("job_failed", str(mps.id), f"job {mps.id} {why}")]
    rec = svc.get(mps.id).record
    assert (rec.state, rec.end_reason, rec.end_time) == (FAILED, why, T0 + 10)
    assert svc.get(whole.id).record.state == RUNNING
    # the restarted daemon serves new clients again
    again = svc.submit("--gres=mps:30 -t 1:00:00", ["python", "serve.py"])
    svc.tick(restarted.with_time(T0 + 11))
    assert svc.get(again.id).record.state == RUNNING


def test_going_back_in_a_replay_is_not_a_restart(svc) -> None:  # type: ignore[no-untyped-def]
    svc.tick(with_daemon(machine(), T0 + 5, MpsDaemon(True, 200, 201, "/tmp/gputui-test-mps-pipe")))
    job = svc.submit("--gres=mps:30 -t 1:00:00", ["python", "serve.py"])
    svc.tick(with_daemon(machine(), T0 + 6, MpsDaemon(True, 200, 201, "/tmp/gputui-test-mps-pipe")))
    assert svc.get(job.id).record.state == RUNNING
    r = svc.tick(machine(T0 + 2))  # seek back: the old daemon (pid 100) is shown again
    assert r.events == () and svc.get(job.id).record.state == RUNNING


def test_the_demo_recordings_mps_restart_fails_a_submitted_mps_job(tmp_path) -> None:  # type: ignore[no-untyped-def]
    opened = open_source("demo")
    source = opened.source
    svc = open_service("demo", source, root=tmp_path)
    try:
        t0 = source.start_time  # type: ignore[attr-defined]
        svc.tick(source.seek(t0 + MPS_RESTART_S - 30))  # type: ignore[attr-defined]
        job = svc.submit("--gres=mps:20 --nodelist=node04 -t 30:00", ["python", "serve.py"])
        svc.tick(source.seek(t0 + MPS_RESTART_S - 1))  # type: ignore[attr-defined]
        assert svc.get(job.id).record.state == RUNNING
        # one poll that steps over the whole restart (stopped, down, started again with a new pid)
        r = svc.tick(source.seek(t0 + MPS_RESTART_S + 10))  # type: ignore[attr-defined]
        rec = svc.get(job.id).record
        assert rec.state == FAILED
        assert rec.end_reason is not None and rec.end_reason.startswith(
            "lost its MPS server: the control daemon on node04 (pid "
        )
        assert [(e.kind, e.job_id) for e in r.events] == [("job_failed", str(job.id))]
    finally:
        svc.close()
        source.close()
