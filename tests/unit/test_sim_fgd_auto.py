"""fgd-auto: the gate's features and fit, which policy it runs on the bundled openb traces, the live-queue policy, and
the LP upper bound that `gputui simulate` reports the gaps to."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.policies import fgd, fgd_auto
from gputui.core.scheduler.policies.fgd_auto import Features, FgdAutoTrace, Gate, features, fit_gate, gated_on
from gputui.core.scheduler.policies.frag import Fragmenter, TargetShape
from gputui.core.scheduler.policies.shapes import NodeFree, PodShape
from gputui.core.simulate import bound
from gputui.core.simulate.benchmark import run_seed
from gputui.core.simulate.workload import TraceNode, expected_workload, read_nodes, read_pods
from tests.support.sched_helpers import layout, place

SIM = FIXTURES / "simulate"


def test_features() -> None:
    shapes = (
        TargetShape(8_000, 1000, 1, frozenset(), 0.5),  # 8 CPUs beside one GPU
        TargetShape(4_000, 500, 1, frozenset({"T4"}), 0.25),  # a T4-only half GPU
        TargetShape(16_000, 0, 0, frozenset(), 0.25),  # CPU-only: its CPUs count, it asks no GPU
    )
    f = features(shapes)
    assert f.cpu_per_gpu == pytest.approx((0.5 * 8_000 + 0.25 * 4_000 + 0.25 * 16_000) / 0.625)
    assert f.spec_share == pytest.approx(0.25 / 0.75)


def test_fit_gate_is_midway_and_does_not_extrapolate() -> None:
    win, lose = 0.5, -2.0
    measured = [
        (Features(12_000, 0.0), win),
        (Features(15_000, 0.0), win),
        (Features(17_000, 0.0), lose),  # CPU-bound
        (Features(14_000, 0.1), win),
        (Features(14_000, 0.3), lose),  # model-constrained
    ]
    assert fit_gate(measured) == Gate(16_000, 0.2)
    # without the losers above them, the thresholds stop at the largest winner
    assert fit_gate(measured[:2]) == Gate(15_000, 0.0)
    # a model-constrained loser with few CPUs does not pull the CPU threshold down
    assert fit_gate([*measured, (Features(10_000, 0.5), lose)]).cpu_per_gpu == 16_000
    assert not gated_on(Features(16_001, 0.0), Gate(16_000, 0.2)) and gated_on(Features(16_000, 0.2), Gate(16_000, 0.2))


def test_bundled_traces_choose_their_policy() -> None:
    default = Fragmenter(expected_workload(read_pods(SIM / "openb_pod_list_default.csv")))
    spec33 = Fragmenter(expected_workload(read_pods(SIM / "openb_pod_list_gpuspec33.csv")))
    assert FgdAutoTrace(default).on and FgdAutoTrace(spec33).on  # both inside the shipped gate
    # a CPU-bound workload (20 CPUs beside each GPU) is outside it: FGD itself
    cpu_bound = Fragmenter((TargetShape(20_000, 1000, 1, frozenset(), 1.0),))
    off = FgdAutoTrace(cpu_bound)
    assert not off.on and type(off.inner).__name__ == "FgdTrace"
    shut = FgdAutoTrace(default, gate=Gate(0.0, 0.0))
    node = NodeFree(64_000, 1 << 20, (1000, 600, 0, 1000), "T4")
    for pod in (PodShape(4_000, 1, 1, 400), PodShape(8_000, 1, 2, 1000), PodShape(2_000, 1, 0, 0)):
        assert shut.evaluate(node, pod) == fgd.FgdTrace(default).evaluate(node, pod)


def test_fgd_auto_beats_fgd_under_model_constraints() -> None:
    pods, nodes = read_pods(SIM / "openb_pod_list_gpuspec33.csv"), read_nodes(SIM / "openb_node_list_gpu_node.csv")
    assert run_seed(pods, nodes, "fgd-auto", 42).value == 96.0  # fgd-idle's; FGD's published 94.39, fgd-cpu 88.27


def test_live_fgd_auto_without_a_workload_and_outside_the_gate() -> None:
    specs = [NodeSpec("node01", (GpuSpec(),) * 8, cpus=88), NodeSpec("node02", (GpuSpec(),) * 8, cpus=176)]
    fits = SchedulerConfig(workload=((1.0, parse_options("--gpus=1 -c 11")),))
    for config in (SchedulerConfig(), fits):
        a, b = state_from_specs(specs, config), state_from_specs(specs, config)
        opts = "--gpus-per-node=1 -c 22"  # a whole GPU: pricing idle GPUs changes nothing between the nodes
        assert layout(place(a, opts, policy="fgd-auto")) == layout(place(b, opts, policy="fgd-cpu"))
    cpu_bound = SchedulerConfig(workload=((1.0, parse_options("--gpus=1 -c 20")),))  # 20 CPUs a GPU: gate shut
    assert not gated_on(fgd_auto.workload_features(cpu_bound.workload))
    # FGD's F sees both nodes fit the next 20-CPU pod (a tie, the first node); fgd-cpu's counts how many
    state = state_from_specs(specs, cpu_bound)
    assert layout(place(state, "--gpus-per-node=1 -c 22", policy="fgd-auto"))[0][0] == "node01"
    assert layout(place(state, "--gpus-per-node=1 -c 22", policy="fgd-cpu"))[0][0] == "node02"


needs_highs = pytest.mark.skipif(not bound.available(), reason="the bound needs HiGHS (the mig extra)")


@needs_highs
def test_lp_bound_sees_cpus_run_out() -> None:
    # one node of 8 GPUs and 16 CPUs; pods of one GPU and 8 CPUs: only two fit, whatever the policy
    node = TraceNode("n", 16_000, 1 << 20, 8, "T4")
    pods = [PodShape(8_000, 1, 1, 1000)] * 6
    assert bound.lp_bound(pods, [node]) == pytest.approx(2000.0)
    # a model the node does not have: nothing
    assert bound.lp_bound([PodShape(1_000, 1, 1, 500, frozenset({"A100"}))], [node]) == 0.0


@needs_highs
def test_bound_is_above_what_a_policy_reaches() -> None:
    pods, nodes = read_pods(SIM / "openb_pod_list_default.csv"), read_nodes(SIM / "openb_node_list_gpu_node.csv")
    b = bound.seed_bound(pods, nodes, 42, demand=60)
    got = run_seed(pods, nodes, "bestfit", 42, demand=60).value
    assert b is not None and got is not None and got <= b < 60.5
