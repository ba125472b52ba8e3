"""Reasons in Slurm's words and explanations in plain words; the policies' scoring functions by table."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sched_helpers import cluster

from gputui.core.scheduler.build import GpuSpec
from gputui.core.scheduler.explain import explain
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.policies import best_fit, fragmentation, get_policy, spread
from gputui.core.scheduler.queue import Scheduler


def sub(q, opts, now=0):
    return q.submit(parse_options(opts), now)


def test_mig_explanation_names_the_holder():
    q = Scheduler(cluster(("node0[1-3]", 1, GpuSpec(mig=("3g.20gb", "3g.20gb")))))
    for n in ("node01", "node02", "node03"):
        sub(q, f"--gres=gpu:3g.20gb:1 -t 60 -w {n}")
    j = sub(q, "--gres=gpu:3g.20gb:2 -t 60")
    q.schedule(0)
    e = explain(q, j.id, 0)
    assert e.reason == "Resources"
    assert e.text == ("needs 2 x 3g.20gb; node01 has 1 free 3g.20gb (held: GPU 0 by job 1); "
                      "expected to start in 01:00:00 at the latest")  # fmt: skip
    assert e.reservation_time == 3600


def test_whole_gpu_and_device_explanations():
    q = Scheduler(cluster(("node0[1-2]", 2, GpuSpec())))
    sub(q, "--gpus=3 -t 10")
    big = sub(q, "--gpus=2 -t 10")
    dev = sub(q, "-w node02 --gpu-ids=0 -t 10")
    q.schedule(0)
    assert explain(q, big.id, 0).text.startswith(
        "needs 2 GPU(s); the cluster has 1 free; node02 has 1 free (GPU 0 held by job 1)"
    )
    e = explain(q, dev.id, 0)
    assert (e.reason, e.text.split("; ")[1]) in {
        ("Resources", "GPU 0 held by job 1"),
        ("Priority", "GPU 0 held by job 1"),
    }


def test_priority_dependency_and_running_explanations():
    q = Scheduler(cluster(("node0[1-2]", 4, GpuSpec())))
    sub(q, "--gpus=6 -t 60")
    head = sub(q, "--gpus=8 -t 60")
    late = sub(q, "--gpus=2 -t 120")
    dep = sub(q, f"--gpus=1 --dependency=afterok:{head.id}")
    q.schedule(0)
    assert explain(q, late.id, 0).text == (
        "needs 2 GPU(s); it would fit now but would delay job 2, which is reserved to start in 01:00:00"
    )
    e = explain(q, dep.id, 0)
    assert (e.reason, e.text) == ("Dependency", "waits for afterok:2 (job 2 is pending)")
    assert explain(q, 1, 0).text == "running on node01, node02"


def test_mps_explanation():
    q = Scheduler(cluster(("n", 1, GpuSpec(mps=True)), mps_percent_cap=100))
    sub(q, "--gres=mps:80 -t 5")
    j = sub(q, "--gres=mps:30 -t 5")
    q.schedule(0)
    assert "GPU 0 has 80 % of the 100 % cap in use" in explain(q, j.id, 0).text


@pytest.mark.parametrize(
    ("fn", "a", "b"),
    [
        # best-fit: the GPU with more slots taken wins, then more placements left open
        (best_fit.mig_key, (0b1111, (3, 9), (3, 5)), (0b0011, (7, 12), (4, 9))),
        (best_fit.mps_key, (60, 2, 0), (10, 1, 1)),
        (best_fit.whole_key, (False, 3), (True, 0)),
        # spread: the emptier GPU wins
        (spread.mig_key, (0b0011, (7, 12), (4, 9)), (0b1111, (3, 9), (3, 5))),
        (spread.mps_key, (10, 1, 1), (60, 2, 0)),
        # fragmentation: lose the least of the largest creatable profile, then of the open placements
        (fragmentation.mig_key, (0b1000000, (4, 20), (4, 15)), (0, (7, 28), (4, 20))),
        (fragmentation.mig_key, (0, (7, 28), (4, 24)), (0, (7, 28), (4, 20))),
        (fragmentation.node_score, (0, (7, 20), 0), (4, (4, 30), 0)),
        (fragmentation.mps_key, (10, 1, 3), (0, 0, 0)),
    ],
)
def test_policy_scores(fn, a, b):
    assert fn(*a) > fn(*b)


def test_unknown_policy_is_a_user_error():
    from gputui.core.scheduler.errors import RequestError

    with pytest.raises(RequestError, match="spread"):
        get_policy("random")


def test_fragmentation_policy_keeps_big_profiles_creatable():
    # two empty MIG GPUs on one node, one with a 1g already: a new 1g goes beside it, keeping a 7g possible
    s = cluster(("m", 2, GpuSpec(mig=())), mig_dynamic=True)
    q = Scheduler(s, policy="fragmentation")
    sub(q, "--gres=gpu:1g.5gb:1 -w m")
    sub(q, "--gres=gpu:1g.5gb:1 -w m")
    d1, d2 = q.schedule(0)
    assert d1.allocation.nodes[0].gpus[0].index == d2.allocation.nodes[0].gpus[0].index


def test_mig_capacity_command():
    out = subprocess.run([sys.executable, "-m", "gputui", "mig", "capacity", "A100-40GB", "2g.10gb"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert out.startswith("A100-40GB 2g.10gb: 3")
    assert "28 SM x 3 <= 98" in out and "10 GB x 4 <= 40 GB" in out and "108" in out
    assert "disagree: the memory bound allows 4, the placement table 3" in out
    bad = subprocess.run([sys.executable, "-m", "gputui", "mig", "capacity", "a100-80", "2g.10gb"],
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and "A100-80GB has no profile '2g.10gb'" in bad.stderr and "Traceback" not in bad.stderr


def test_plan_command_on_a_synthetic_cluster(capsys):
    import argparse

    from gputui.cli import plan_cmd

    p = argparse.ArgumentParser()
    plan_cmd.add_parser(p.add_subparsers())
    args = p.parse_args(["plan", "--synthetic", "node[01-04]:4:A100-40GB", "--", "--gpus=8", "-t", "1:00:00"])
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("would start now on node[01-02] (8 GPU(s))") and "SLURM_JOB_NODELIST=node[01-02]" in out


def test_core_scheduler_imports_no_ui_or_driver():
    code = ("import sys, gputui.core.scheduler, gputui.core.scheduler.explain;"
            "bad=[m for m in sys.modules if m.split('.')[0] in ('textual','rich','pynvml')"
            " or m.startswith(('gputui.sources','gputui.ui'))];"
            "print(bad)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_job_behind_the_first_waiting_one_waits_for_priority():
    """As Slurm 22.05 says (checked on the test cluster): the first job that cannot start waits for Resources,
    the ones behind it that cannot start either wait for Priority, with what they need all the same."""
    q = Scheduler(cluster(("node01", 2, GpuSpec())))
    running = sub(q, "--gpus=2 -t 60")
    first = sub(q, "--gpus=2 -t 60")
    behind = sub(q, "--gpus=1 -t 60")
    q.schedule(0)
    assert (explain(q, first.id, 0).reason, explain(q, behind.id, 0).reason) == ("Resources", "Priority")
    text = explain(q, behind.id, 0).text
    assert text.startswith("needs 1 GPU(s); the cluster has 0 free")
    assert f"held by job {running.id}" in text and f"waits behind higher-priority job {first.id}" in text
