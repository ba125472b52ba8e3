"""The benchmark cluster generator: lazy, deterministic, legal, and busy."""

from __future__ import annotations

import itertools
import types

import pytest

from gputui.core.mig_profiles import load_models, model_for
from gputui.synth import place, validate_gpu_layout
from gputui.synth.cluster import mig_layouts, synth_cluster, synth_cluster_steps
from gputui.synth.timeline import DEFAULT_START


def test_frames_are_lazy_and_one_second_apart() -> None:
    gen = synth_cluster(2, 8, seconds=86_400, seed=1)
    assert isinstance(gen, types.GeneratorType)
    first = list(itertools.islice(gen, 5))  # a day is never built in full to hand out five frames
    assert [f.timestamp - DEFAULT_START for f in first] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert [n.name for n in first[0].nodes] == ["node01", "node02"]
    assert first[0].gpu_count == 16
    assert sum(1 for _ in synth_cluster(1, 2, seconds=30, seed=1)) == 30


def test_same_seed_same_frames_other_seed_other_frames() -> None:
    a = list(synth_cluster(1, 4, seconds=40, seed=7, mig_fraction=0.25, mps_fraction=0.25))
    b = list(synth_cluster(1, 4, seconds=40, seed=7, mig_fraction=0.25, mps_fraction=0.25))
    c = list(synth_cluster(1, 4, seconds=40, seed=8, mig_fraction=0.25, mps_fraction=0.25))
    assert a == b
    assert a != c


def test_fractions_choose_exact_gpu_counts_and_layouts_are_legal() -> None:
    steps = list(synth_cluster_steps(2, 8, seconds=900, seed=3, mig_fraction=0.25, mps_fraction=0.25))
    gpus = [g for n in steps[0][0].nodes for g in n.gpus]
    assert sum(bool(g.mig_mode_current) for g in gpus) == 4
    assert sum(g.mps is not None and g.mps.running for g in gpus) == 4
    for snap, _ in steps[::50]:
        for node in snap.nodes:
            for g in node.gpus:
                assert validate_gpu_layout(g) == []
                if not g.mig_mode_current:
                    assert g.memory_used_mib is not None and g.memory_total_mib is not None
                    assert g.memory_used_mib <= g.memory_total_mib
    kinds = {e.kind for _, events in steps for e in events}
    assert {"job_submitted", "job_started", "job_ended"} <= kinds


def test_jobs_come_and_go() -> None:
    pids = [
        {p.pid for n in snap.nodes for g in n.gpus for p in g.processes}
        for snap in synth_cluster(1, 8, seconds=1800, seed=5)
    ]
    assert pids[0] != pids[-1]
    assert len(set().union(*pids)) > len(pids[0]) + 3
    utils = [snap.nodes[0].gpus[0].utilization_gpu for snap in synth_cluster(1, 1, seconds=300, seed=5)]
    assert len(set(utils)) > 1


@pytest.mark.parametrize("key", sorted(load_models()))
def test_stock_layouts_are_accepted_by_the_table(key: str) -> None:
    model = load_models()[key]
    layouts = mig_layouts(model)
    assert layouts
    for layout in layouts:
        place(model, [x if isinstance(x, str) else x[0] for x in layout])


def test_a100_layouts_include_a_split_gpu_instance() -> None:
    model = model_for("NVIDIA A100-SXM4-80GB")
    assert model is not None
    assert any(not isinstance(item, str) for layout in mig_layouts(model) for item in layout)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mig_fraction": 0.7, "mps_fraction": 0.5},
        {"mig_fraction": -0.1},
        {"gpu_name": "NVIDIA GeForce GTX 1080"},
    ],
)
def test_bad_arguments_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        next(synth_cluster(1, 8, seconds=10, seed=1, **kwargs))
