"""The queue: priority and submit order, dependencies, EASY backfill, reasons, decisions and environment."""

from __future__ import annotations

import pytest
from sched_helpers import cluster

from gputui.core.scheduler.build import GpuSpec
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.queue import Scheduler

A100 = GpuSpec()


def sched(*groups, policy=None, **cfg) -> Scheduler:
    return Scheduler(cluster(*groups, **cfg), policy=policy)


def sub(q: Scheduler, opts: str, now: float = 0):
    return q.submit(parse_options(opts), now)


def started(decisions) -> list[int]:
    return [d.job_id for d in decisions]


def test_priority_then_submit_order():
    q = sched(("n", 1, A100))
    a = sub(q, "--gpus=1 -t 10")
    b = sub(q, "--gpus=1 -t 10 --priority=5")
    c = sub(q, "--gpus=1 -t 10 --priority=5 --nice=1")
    assert started(q.schedule(0)) == [b.id]
    # c is first in line and waits for resources; a, behind it, waits for Priority (as Slurm 22.05 says)
    assert (c.reason, a.reason) == ("Resources", "Priority")
    q.finish(b.id, 60)
    assert started(q.schedule(60)) == [c.id]
    q.finish(c.id, 70)
    assert started(q.schedule(70)) == [a.id]


def test_dependencies():
    q = sched(("n", 2, A100))
    a = sub(q, "--gpus=1 -t 10")
    b = sub(q, f"--gpus=1 --dependency=afterok:{a.id}")
    c = sub(q, f"--gpus=1 --dependency=afternotok:{a.id}")
    assert started(q.schedule(0)) == [a.id]
    assert (b.reason, c.reason) == ("Dependency", "Dependency")
    q.finish(a.id, 5, ok=True)
    assert started(q.schedule(5)) == [b.id]
    assert c.reason == "DependencyNeverSatisfied"
    with pytest.raises(RequestError, match="--dependency"):
        sub(q, "--gpus=1 --dependency=afterok:999")


def test_submit_refuses_what_could_never_run():
    q = sched(("node[01-02]", 4, A100), ("m", 1, GpuSpec(mig=("3g.20gb",))))
    for opts, option in [
        ("--gpus=9", "--gpus"), ("--gpus-per-node=5", "--gpus-per-node"), ("--gpus=v100:1", "--gpus"),
        ("--gres=gpu:1g.10gb:1", "--gres"), ("--gres=gpu:3g.20gb:2", "--gres"), ("--gres=mps:10", "--gres=mps"),
        ("-w node09 --gpus=1", "--nodelist"), ("-w node01 --gpu-ids=7", "--gpu-ids"), ("-N 4 --exclusive", "--nodes"),
        ("-w m --gpu-ids=0", "--gpu-ids"),
    ]:  # fmt: skip
        with pytest.raises(RequestError) as e:
            sub(q, opts)
        assert option in str(e.value), opts


def test_easy_backfill_short_job_runs_early_long_job_waits():
    q = sched(("node[01-02]", 4, A100))
    running = sub(q, "--gpus=6 -t 60")  # node01 full, node02 has 2 free until t=3600
    q.schedule(0)
    head = sub(q, "--gpus=8 -t 60")
    long = sub(q, "--gpus=2 -t 120")  # would hold node02 past 3600: it would delay the head
    short = sub(q, "--gpus=2 -t 30")  # ends by 3600: may start now
    assert started(q.schedule(0)) == [short.id]
    assert short.backfilled and head.reason == "Resources" and head.reservation[0] == 3600
    assert long.reason == "Priority"
    q.finish(running.id, 3600)
    q.finish(short.id, 1800)
    assert started(q.schedule(3600)) == [head.id]


def test_backfill_goes_around_the_reserved_node():
    q = sched(("node[01-03]", 4, A100))
    a = sub(q, "--gpus=3 -w node01 -t 60")
    b = sub(q, "--gpus=4 -w node02 -t 600")
    q.schedule(0)
    head = sub(q, "--gpus=4 -t 60 -x node03")  # only node01 (free at 3600) or node02 can take it
    sub(q, "--gpus=4 -w node03 -t 600")  # fills node03
    late = sub(q, "--gpus=1 -t 600")  # would fit on node01 (reserved) but must not delay head
    q.schedule(0)
    assert head.reservation[0] == 3600 and head.reservation[1].node_names == ("node01",)
    assert late.reason == "Priority" and late.blocked_by == head.id
    assert a.state == b.state == "RUNNING"


def test_backfill_off_keeps_strict_order():
    q = sched(("node[01-02]", 4, A100), backfill=False)
    sub(q, "--gpus=6 -t 60")
    q.schedule(0)
    sub(q, "--gpus=8")
    short = sub(q, "--gpus=1 -t 1")
    assert q.schedule(0) == [] and short.reason == "Priority"


def test_default_time_applies_to_jobs_without_time():
    q = sched(("n", 1, A100), default_time_s=120)
    j = sub(q, "--gpus=1")
    q.schedule(10)
    assert j.expected_end == 130
    assert sub(q, "--gpus=1 -t INFINITE").limit_s is None


def test_decision_environment_for_whole_gpus():
    q = sched(("node[01-02]", 2, A100))
    sub(q, "--gpus=4 -J big -p gpu")
    (d,) = q.schedule(0)
    env = d.env_for("node02")
    uuids = [g.uuid for g in d.allocation.nodes[1].gpus]
    assert env["CUDA_VISIBLE_DEVICES"] == ",".join(uuids) and all(u.startswith("GPU-") for u in uuids)
    assert env["SLURM_JOB_ID"] == "1" and env["SLURM_JOB_NAME"] == "big"
    assert env["SLURM_JOB_NODELIST"] == "node[01-02]" and env["SLURM_JOB_NUM_NODES"] == "2"
    assert env["SLURM_NODEID"] == "1" and env["SLURM_JOB_GPUS"] == "0,1" and env["SLURM_GPUS_ON_NODE"] == "2"
    assert "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" not in env
    assert d.warnings == ("ignored (no effect on placement): --partition",)


def test_decision_environment_for_mig():
    q = sched(("m", 1, GpuSpec(mig=("3g.20gb", "3g.20gb"))))
    sub(q, "--gres=gpu:3g.20gb:2")
    (d,) = q.schedule(0)
    env = d.env_for("m")
    assert env["CUDA_VISIBLE_DEVICES"].count("MIG-") == 2 and env["SLURM_GPUS_ON_NODE"] == "2"
    assert sorted(g.mig.gi_id for g in d.allocation.nodes[0].gpus) == [1, 2]


def test_dynamic_mig_names_uncreated_instances_in_cuda_form():
    q = sched(("m", 1, GpuSpec(mig=())), mig_dynamic=True)
    sub(q, "--gres=gpu:1g.5gb:1")
    (d,) = q.schedule(0)
    g = d.allocation.nodes[0].gpus[0]
    assert d.env_for("m")["CUDA_VISIBLE_DEVICES"] == f"MIG-{g.uuid}/{g.mig.gi_id}/0"


def test_gang_start_is_all_at_once():
    q = sched(("node[01-02]", 2, A100))
    sub(q, "--gpus=1 -w node02 -t 10")
    q.schedule(0)
    j = sub(q, "-N 2 --gpus-per-node=2")
    assert q.schedule(0) == [] and j.state == "PENDING"
    assert q.state.nodes[0].gpus[0].holder is None  # nothing half-started on node01


def test_cancel_and_refresh(tmp_path):
    from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot

    gpus = tuple(GpuSnapshot(index=i, uuid=f"GPU-{i}", name="NVIDIA A100-SXM4-40GB") for i in range(2))
    snap = ClusterSnapshot(0, (NodeSnapshot("n", gpus),))
    from gputui.core.scheduler.build import state_from_snapshot

    q = Scheduler(state_from_snapshot(snap))
    a = sub(q, "--gpus=1")
    b = sub(q, "--gpus=2")
    q.schedule(0)
    assert q.refresh(snap) == [] and q.state.nodes[0].by_index[a.allocation.nodes[0].gpus[0].index].holder == a.id
    q.cancel(b.id, 1)
    q.cancel(a.id, 1)
    assert b.state == a.state == "CANCELLED" and q.state.totals["g:*"] == 2


def test_adopt_puts_a_running_job_back_and_its_gpus_count_as_taken():
    first = sched(("n", 2, A100))
    job = sub(first, "--gpus=1 -t 10")
    alloc = first.schedule(0)[0].allocation
    rebuilt = sched(("n", 2, A100))  # the queue after a restart, with the job submitted again
    again = rebuilt.submit(job.request, 0, job_id=job.id)
    rebuilt.adopt(again, alloc, 5)
    assert again.state == "RUNNING" and again.start_time == 5 and rebuilt.pending == []
    other = sub(rebuilt, "--gpus=2 -t 10")
    assert rebuilt.schedule(6) == [] and other.reason == "Resources"  # the adopted GPU is held
    with pytest.raises(ValueError, match="not pending"):
        rebuilt.adopt(again, alloc, 5)
