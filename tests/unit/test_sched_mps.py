"""MPS shares: only on MPS GPUs, never beside a whole-GPU job, percentages, memory, the client limit."""

from __future__ import annotations

from sched_helpers import cluster, place

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.state import ANY

MPS = GpuSpec(mps=True)


def test_mps_only_on_gpus_with_a_daemon():
    s = cluster(("plain", 2, GpuSpec()), ("shared", 2, MPS))
    a = place(s, "--gres=mps:30", job=1)
    assert a.nodes[0].node == "shared" and a.nodes[0].gpus[0].mps_percent == 30
    s2 = cluster(("plain", 2, GpuSpec()))
    assert place(s2, "--gres=mps:30") is None


def test_gpu_is_whole_or_shared_never_both():
    s = cluster(("n", 1, MPS))
    a = place(s, "--gres=mps:20", job=1)
    assert place(s, "--gpus=1") is None  # shared: not free as a whole
    ledger.release(s, a, 1)
    place(s, "--gpus=1", job=2)
    assert place(s, "--gres=mps:20") is None  # held whole: no share


def test_percentages_may_pass_100_unless_capped():
    s = cluster(("n", 1, MPS))
    for j in range(1, 4):
        assert place(s, "--gres=mps:60", job=j) is not None
    assert s.nodes[0].gpus[0].mps_pct == 180
    capped = cluster(("n", 1, MPS), mps_percent_cap=100)
    place(capped, "--gres=mps:60", job=1)
    assert place(capped, "--gres=mps:60") is None
    assert place(capped, "--gres=mps:40") is not None


def test_client_limit_of_48():
    s = cluster(("n", 1, MPS), cpus=64)  # each client is a job with one CPU
    for j in range(48):
        assert place(s, "--gres=mps:1", job=j + 1) is not None
    assert place(s, "--gres=mps:1") is None


def test_memory_oversubscription_warns_or_is_refused_in_strict_mode():
    s = cluster(("n", 1, MPS))  # 40 GiB
    q = Scheduler(s)
    q.submit(parse_options("--gres=mps:50 --gpu-mem=30G"), 0)
    q.submit(parse_options("--gres=mps:50 --gpu-mem=30G"), 0)
    d1, d2 = q.schedule(0)
    assert d1.warnings == ()
    assert any("MPS jobs declare 61440 MiB, the GPU has 40960 MiB" in w for w in d2.warnings)
    strict = cluster(("n", 1, MPS), mps_strict_memory=True)
    place(strict, "--gres=mps:50 --gpu-mem=30G", job=1)
    assert place(strict, "--gres=mps:50 --gpu-mem=30G") is None


def test_k_gpus_at_p_percent_and_environment():
    s = cluster(("n", 4, MPS))
    q = Scheduler(s)
    q.submit(parse_options("--gpus-per-node=2 --export=ALL,CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 -J m"), 0)
    (d,) = q.schedule(0)
    env = d.env_for("n")
    gpus = d.allocation.nodes[0].gpus
    assert [g.mps_percent for g in gpus] == [25, 25] and len({g.index for g in gpus}) == 2
    assert env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] == "25"
    assert env["CUDA_MPS_PIPE_DIRECTORY"] == "/tmp/nvidia-mps"
    assert env["CUDA_VISIBLE_DEVICES"] == ",".join(g.uuid for g in gpus)
    assert s.totals[ANY] == 2


def test_best_fit_packs_shares_spread_spreads_them():
    s = cluster(("n", 2, MPS))
    place(s, "--gres=mps:10", job=1)
    assert place(s, "--gres=mps:10").nodes[0].gpus[0].index == 0
    assert place(s, "--gres=mps:10", policy="spread").nodes[0].gpus[0].index == 1
