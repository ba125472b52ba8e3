"""The slurm placement policy (Slurm 22.05 select/cons_tres as measured on the lab) and the request words it
needs (--hold, --begin, --gpus-per-task, options left to Slurm), on small synthetic clusters."""

from __future__ import annotations

import pytest
from sched_helpers import cluster, layout, place

from gputui.core.scheduler.build import GpuSpec
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.parse.timespec import begin_time, parse_begin

MPS = GpuSpec(mps=True)


def lab():  # type: ignore[no-untyped-def]
    """Four nodes of 16 CPUs: node01-03 with 4 GPUs, node04 with 2 MPS GPUs (the lab, MIG aside)."""
    return cluster(("node[01-03]", 4, GpuSpec()), ("node04", 2, MPS), cpus=16, mem_mib=64000,
                   policy="slurm", mps_percent_cap=100, mps_beside_whole=True)  # fmt: skip


@pytest.mark.parametrize(
    ("before", "options", "where"),
    [
        ((), "--gpus=1", [("node01", (0,))]),  # all alike: node order
        (("-w node02 -c 1",), "--gres=gpu:1", [("node02", (0,))]),  # the fewest free CPUs that fit
        (("-w node01 -c 8", "-w node02 -c 4"), "--gres=gpu:1", [("node01", (0,))]),  # 8 free < 12 free
        (("-w node01 -c 15",), "--gres=gpu:1 -c 2", [("node02", (0,))]),  # node01 has 1 CPU left
        ((), "--gpus=5", [("node01", (0, 1, 2, 3)), ("node02", (0,))]),  # a total fills nodes in order
        ((), "--gpus=3 -N2", [("node01", (0, 1)), ("node02", (0,))]),
        ((), "-N2 --gpus-per-node=2", [("node01", (0, 1)), ("node02", (0, 1))]),
        # node02 taken whole: the run node03-04 holds the job, node01 alone does not
        (
            ("-w node01 --gres=gpu:1", "--exclusive -w node02"),
            "-N2 --gpus-per-node=2",
            [("node03", (0, 1)), ("node04", (0, 1))],
        ),
        (("--gres=gpu:1",), "--exclusive", [("node02", (0, 1, 2, 3))]),  # the first idle node in order
        (("--gres=mps:50",), "-w node04 --gres=gpu:2", [("node04", (0, 1))]),  # whole GPUs beside MPS
        (("-w node04 --gres=gpu:1",), "--gres=mps:50", [("node04", (1,))]),  # MPS skips a GPU held whole
    ],
)
def test_slurm_placement(before: tuple[str, ...], options: str, where: list) -> None:  # type: ignore[type-arg]
    state = lab()
    for i, opts in enumerate(before, start=1):
        assert place(state, opts, job=i, policy="slurm") is not None, opts
    got = place(state, options, policy="slurm")
    assert got is not None and layout(got) == where


def test_mps_only_tries_the_first_gpu_no_whole_job_holds() -> None:
    state = lab()
    assert place(state, "--gres=mps:60", job=1, policy="slurm") is not None
    assert place(state, "--gres=mps:60", policy="slurm") is None  # GPU 1 is free, but Slurm 22.05 waits


def test_request_words_slurm_models() -> None:
    held = parse_options("--hold --gres=gpu:1")
    assert held.held and held.ignored == ()
    assert parse_options("--gpus-per-task=2 -n 3").gpus == 6
    left = parse_options("--signal B:USR1@60 --gres=gpu:1 -Z 3 --comment=x", slurm=True)
    assert left.ignored == ("--signal", "-Z", "--comment") and left.gpus_per_node == 1
    with pytest.raises(RequestError, match="unsupported option --signal"):
        parse_options("--signal B:USR1@60 --gres=gpu:1")
    assert parse_options("--gres=mps:150", slurm=True).mps_percent == 150
    with pytest.raises(RequestError, match="more than 100 %"):
        parse_options("--gres=mps:150")


def test_begin_times() -> None:
    assert begin_time(parse_begin("now+1hour"), 1000.0) == 4600.0
    assert begin_time(parse_begin("now+90"), 1000.0) == 1090.0
    assert begin_time(parse_begin("now"), 1000.0) == 1000.0
    noon = begin_time(parse_begin("12:00"), 0.0)
    assert 0.0 < noon <= 86400.0
    with pytest.raises(RequestError, match="cannot read begin time"):
        parse_begin("next tuesday")


def test_the_slurm_policy_also_creates_mig_instances_in_planning_mode() -> None:
    state = cluster(("node01", 1, GpuSpec(mig=())), policy="slurm", mig_dynamic=True)
    got = place(state, "--gres=gpu:1g.10gb:1", policy="slurm")
    assert got is not None and got.nodes[0].gpus[0].mig is not None
