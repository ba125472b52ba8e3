"""fgd-cpu: the CPU-aware fragmentation measure and score as a table of cases, and the policy in the live queue."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.policies.fgd_cpu import OPENB_DEFAULT, live_score, shapes_of, workload_shapes
from gputui.core.scheduler.policies.frag import Fragmenter, TargetShape, cpu_per_gpu, fragment_cpu_aware, stranded
from gputui.core.scheduler.policies.shapes import NodeFree
from gputui.core.scheduler.policies.slivers import correction, eventual_waste, share_mix, sliver_term
from gputui.core.simulate.benchmark import run_seed
from gputui.core.simulate.workload import read_nodes, read_pods
from tests.support.sched_helpers import layout, place

ONE_GPU_11_CPU = (TargetShape(11_000, 1000, 1, frozenset(), 1.0),)
HALF_4_CPU = (TargetShape(4_000, 500, 1, frozenset(), 1.0),)
PAIR_8_CPU = (TargetShape(8_000, 1000, 2, frozenset(), 1.0),)


@pytest.mark.parametrize(
    ("cpu", "gpus", "shapes", "want"),
    [
        (96_000, (1000,) * 8, ONE_GPU_11_CPU, 0.0),  # 8 pods of 11 CPUs fit: nothing stranded
        (12_000, (1000,) * 8, ONE_GPU_11_CPU, 7000.0),  # one such pod fits: 7 GPUs stranded (FGD's F says 0)
        (5_000, (1000,) * 8, ONE_GPU_11_CPU, 8000.0),  # none fits
        (8_000, (1000, 300, 600), HALF_4_CPU, 300.0 + 600.0 - 600.0 + 0.0),  # two pods: the idle and the 600 GPU
        (4_000, (1000, 600, 300), HALF_4_CPU, 900.0),  # one pod: the emptiest GPU only
        (64_000, (1000, 1000, 1000, 0), PAIR_8_CPU, 1000.0),  # one pair of idle GPUs, the third is alone
        (8_000, (1000,) * 4, PAIR_8_CPU, 2000.0),  # CPUs for one pair only
        (96_000, (1000,) * 2, (TargetShape(4_000, 0, 0, frozenset(), 1.0),), 0.0),  # CPU-only shapes: no fragment
        (96_000, (1000,), (TargetShape(1_000, 500, 1, frozenset({"A100"}), 1.0),), 1000.0),  # model not allowed
    ],
)
def test_fragment_cpu_aware(cpu: int, gpus: tuple[int, ...], shapes: tuple, want: float) -> None:
    assert fragment_cpu_aware(cpu, gpus, "T4", shapes) == pytest.approx(want)


@pytest.mark.parametrize(
    ("before", "cpu", "taken", "want"),
    [
        # a 1-GPU 11-CPU pod on a CPU-rich node: F stays 0, the sigmoid's middle
        (NodeFree(96_000, 0, (1000,) * 8), 11_000, {0: 1000}, 50),
        # a 22-CPU pod where 88 CPUs fed all 8 GPUs: 66 feed 6 of the 7 left, F grows by 1000
        (NodeFree(88_000, 0, (1000,) * 8), 22_000, {0: 1000}, 26),
        (NodeFree(176_000, 0, (1000,) * 8), 22_000, {0: 1000}, 50),  # where CPUs are plenty it does not
        # where the CPUs were already short, the next pod strands nothing more (F: 7000 before and after)
        (NodeFree(12_000, 0, (1000,) * 8), 11_000, {3: 1000}, 50),
        # half a GPU: its other half is of no use to 1-GPU pods, F grows by 500
        (NodeFree(96_000, 0, (1000, 1000)), 4_000, {1: 500}, 37),
    ],
)
def test_live_score(before: NodeFree, cpu: int, taken: dict[int, int], want: int) -> None:
    assert live_score(before, cpu, taken, Fragmenter(ONE_GPU_11_CPU, cpu_aware=True)) == want


@pytest.mark.parametrize(
    ("cpu", "gpus", "want"),
    [
        (88_000, (1000,) * 8, 0.0),  # 11 CPUs per GPU: all 8 fed
        (66_000, (1000,) * 7, 1000.0),  # 6 of 7 fed
        (11_000, (1000, 500, 0), 500.0),  # 1.5 GPUs free, CPUs for one
        (0, (190,), 190.0),
        (200_000, (1000,) * 2, 0.0),
    ],
)
def test_stranded(cpu: int, gpus: tuple[int, ...], want: float) -> None:
    assert stranded(cpu, gpus, 11_000.0) == pytest.approx(want)


def test_cpu_per_gpu_weights_by_gpu_asked() -> None:
    shapes = (TargetShape(4_000, 500, 1, frozenset(), 0.5), TargetShape(16_000, 1000, 2, frozenset(), 0.5))
    assert cpu_per_gpu(shapes) == pytest.approx((0.5 * 4_000 + 0.5 * 16_000) / (0.5 * 0.5 + 0.5 * 2))
    assert cpu_per_gpu((TargetShape(4_000, 0, 0, frozenset(), 1.0),)) == 0.0


def test_the_stranding_term_turns_the_score() -> None:
    # a 22-CPU pod where 88 CPUs fed all 8 GPUs: F grows by 1000, plus 5 x 1000 stranded in the long run
    frag = Fragmenter(ONE_GPU_11_CPU, cpu_aware=True, stranding=5.0)
    assert live_score(NodeFree(88_000, 0, (1000,) * 8), 22_000, {0: 1000}, frag) == 0  # trunc(100 sigmoid(-6))
    assert live_score(NodeFree(176_000, 0, (1000,) * 8), 22_000, {0: 1000}, frag) == 50


def test_default_workload_is_openb_frequencies() -> None:
    shapes = shapes_of(OPENB_DEFAULT)
    assert sum(s.freq for s in shapes) == pytest.approx(1.0)
    assert shapes[0].gpu_milli == 810 and shapes[0].freq == max(s.freq for s in shapes)


def test_configured_workload_is_used() -> None:
    reqs = (
        (3.0, parse_options("--gpus=1 -c 4")),
        (1.0, parse_options("--gpu-milli=500")),
        (2.0, parse_options("-c 8")),
    )
    shapes = workload_shapes(reqs)
    assert [(s.num_gpu, s.gpu_milli, round(s.freq, 2)) for s in shapes] == [(1, 1000, 0.75), (1, 500, 0.25)]


def test_live_queue_does_not_strand_gpus_behind_cpus() -> None:
    # node01's 88 CPUs feed its 8 GPUs exactly (11 each); node02 has CPUs to spare
    specs = [NodeSpec("node01", (GpuSpec(),) * 8, cpus=88), NodeSpec("node02", (GpuSpec(),) * 8, cpus=176)]
    config = SchedulerConfig(workload=((1.0, parse_options("--gpus=1 -c 11")),))
    state = state_from_specs(specs, config)
    assert layout(place(state, "--gpus-per-node=1 -c 22", policy="best-fit"))[0][0] == "node01"  # strands a GPU
    assert layout(place(state, "--gpus-per-node=1 -c 22", policy="fgd-cpu"))[0][0] == "node02"
    ledger.apply(state, place(state, "--gpus-per-node=1 -c 22", policy="fgd-cpu"), 1)
    state.audit()


def test_live_queue_mig_and_mps_follow_best_fit() -> None:
    mig = GpuSpec(mig=("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"))
    for options, spec in (("--gres=gpu:1g.5gb:1", mig), ("--gres=mps:25", GpuSpec(mps=True))):
        specs = [NodeSpec(f"node0{i}", (spec,) * 2) for i in (1, 2)]
        a, b = (state_from_specs(specs, SchedulerConfig()) for _ in range(2))
        assert layout(place(a, options, policy="best-fit")) == layout(place(b, options, policy="fgd-cpu"))


# term 3 (slivers.py): a workload of half 500-thousandth shares, half whole GPUs, and CPU-only pods (left out)
HALF_SHARES = (
    TargetShape(4_000, 500, 1, frozenset(), 0.4),
    TargetShape(11_000, 1000, 1, frozenset(), 0.4),
    TargetShape(4_000, 0, 0, frozenset(), 0.2),
)


def test_share_mix_is_over_gpu_pods() -> None:
    assert share_mix(HALF_SHARES) == {500: pytest.approx(0.5)}
    assert share_mix(ONE_GPU_11_CPU) == {}


@pytest.mark.parametrize(
    ("free", "waste", "corr"),
    [
        (0, 0.0, 0.0),
        (499, 499.0, 0.0),  # no share fits: wasted now and in the end, nothing to correct
        (500, 0.0, -250.0),  # a 500 share all but surely comes (1 - exp(-50 x 0.5)): F's 500 x 0.5 was too much
        (700, 200.0, -150.0),  # one share comes, 200 stay
        (999, 499.0, -0.5),
        (1000, 0.0, 0.0),  # two shares fill an idle GPU; idle GPUs are term 1's, not corrected
    ],
)
def test_eventual_waste_and_correction(free: int, waste: float, corr: float) -> None:
    assert eventual_waste(HALF_SHARES)[free] == pytest.approx(waste, abs=1e-6)
    assert correction(HALF_SHARES)[free] == pytest.approx(corr, abs=1e-6)
    assert sliver_term((free, 0, 1000), correction(HALF_SHARES)) == pytest.approx(corr, abs=1e-6)


def test_no_share_no_correction() -> None:
    assert set(correction(ONE_GPU_11_CPU)) == {0.0}
    assert eventual_waste(ONE_GPU_11_CPU)[190] == 190.0


@pytest.mark.parametrize(
    ("milli", "gpus", "slivers", "want"),
    [
        # a 230 share on the openb mix, into a 350 hole (beside a 650), a 530 hole (beside a 470) or an idle GPU:
        (230, [(350,), (530,), (1000,)], False, [55, 53, 36]),  # F alone fills the 350 hole (120 left)
        (230, [(350,), (530,), (1000,)], True, [48, 49, 46]),  # term 3 keeps it for a 320 share (30 left)
        (320, [(350,), (530,)], True, [51, 48]),  # which a 320 share takes
    ],
)
def test_sliver_term_keeps_holes_for_the_shares_that_fill_them(
    milli: int, gpus: list[tuple[int, ...]], slivers: bool, want: list[int]
) -> None:
    frag = Fragmenter(shapes_of(OPENB_DEFAULT), cpu_aware=True, stranding=5.0, slivers=slivers)
    assert [live_score(NodeFree(96_000, 0, g), 4_000, {0: milli}, frag) for g in gpus] == want


def test_one_seed_of_openb_default_beats_fgd_by_term_3() -> None:
    """The quick subset of the issue's target (ten seeds: docs/simulate.md): seed 42 of the real default trace."""
    sim = FIXTURES / "simulate"
    pods, nodes = read_pods(sim / "openb_pod_list_default.csv"), read_nodes(sim / "openb_node_list_gpu_node.csv")
    assert run_seed(pods, nodes, "fgd-cpu", 42).value == 96.31  # 95.94 before term 3, FGD 95.29
