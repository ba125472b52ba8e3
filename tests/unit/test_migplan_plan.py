"""The MIG plan: exact (HiGHS) and heuristic answers, drains, and commands that replay on the model."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gputui.core.mig_profiles import load_models
from gputui.core.migplan import solve_ip
from gputui.core.migplan.layouts import all_layouts, why_invalid
from gputui.core.migplan.parted import parse_counts
from gputui.core.migplan.plan import make_plan
from gputui.core.migplan.problem import Demand, Instance, PlanGpu, Problem, Work
from gputui.core.migplan.smi_replay import ModelGpu, replay

A100 = load_models()["A100-80GB"]
needs_highs = pytest.mark.skipif(not solve_ip.available(), reason="highspy is not installed")


def _want(*profiles: str) -> tuple[Demand, ...]:
    return tuple(Demand(f"want {k}", f"w{k}", ((p, 1),), rank=k) for k, p in enumerate(profiles))


def _replay_ok(plan) -> None:
    """Every GPU's commands replay on the model from its current layout to the proposed one."""
    for gp in plan.gpus:
        g = ModelGpu(gp.gpu.model)
        for i in gp.gpu.instances:
            g.instances[i.gi_id] = i.slot
            g.cis[i.gi_id] = set(i.ci_ids)
            if i.busy and i not in gp.removed:
                g.busy |= {(i.gi_id, c) for c in i.ci_ids}
        for cmd in gp.commands:
            replay({gp.gpu.index: g}, list(cmd))
        assert g.layout() == gp.layout
        assert why_invalid(gp.gpu.model, gp.layout) is None


@pytest.mark.parametrize("solver", [pytest.param("highs", marks=needs_highs), "heuristic"])
def test_two_3g_and_a_4g_need_two_gpus_and_the_4g_pairs_with_a_3g(solver):
    gpus = (PlanGpu("n1", 0, A100), PlanGpu("n1", 1, A100))
    plan = make_plan(Problem(gpus, _want("3g.40gb", "3g.40gb", "4g.40gb", "3g.40gb")), solver)
    assert plan.started_compute == 13  # 4g+3g on one GPU, 3g+3g on the other
    assert len(plan.waiting) == 0
    _replay_ok(plan)


@needs_highs
def test_draining_happens_only_for_a_net_gain():
    w = Work("job 1", "job 1", 1)
    busy_1g = Instance(1, all_layouts(A100)[1][0], holders=(w,))  # a 1g at slot 0
    assert busy_1g.slot.profile.startswith("1g.10gb") and busy_1g.slot.start == 0
    gpus = (PlanGpu("n1", 0, A100, (busy_1g,)),)
    # a 7g can start only if the 1g drains: +7 - 1
    plan = make_plan(Problem(gpus, _want("7g.80gb")))
    assert plan.started_compute == 7 and [x.key for gp in plan.gpus for x in gp.drained] == ["job 1"]
    _replay_ok(plan)
    never = make_plan(Problem(gpus, _want("7g.80gb"), drain_weight=math.inf))
    assert never.started_compute == 0 and never.drained_compute == 0
    heavy = make_plan(Problem(gpus, _want("7g.80gb"), drain_weight=8.0))
    assert heavy.started_compute == 0


def test_existing_idle_instances_are_used_without_commands():
    from gputui.core.migplan.layouts import slot

    idle = Instance(2, slot(A100, "3g.40gb", 4))
    plan = make_plan(Problem((PlanGpu("n1", 0, A100, (idle,)),), _want("3g.40gb")), "heuristic")
    (gp,) = plan.gpus
    assert gp.commands == () and [s for s, _ in gp.starts] == [idle.slot]


def test_a_fixed_gpu_is_never_resliced():
    from gputui.core.migplan.layouts import slot

    idle = Instance(2, slot(A100, "1g.10gb", 0))
    plan = make_plan(Problem((PlanGpu("n1", 0, A100, (idle,), fixed=True),), _want("7g.80gb")))
    assert plan.gpus[0].commands == () and plan.started_compute == 0


def test_a_job_needing_two_instances_starts_on_one_node_or_not_at_all():
    gpus = (PlanGpu("n1", 0, A100), PlanGpu("n2", 0, A100))
    d = Demand("job 9", "job 9", (("4g.40gb", 2),), rank=0)
    for solver in ["heuristic"] + (["highs"] if solve_ip.available() else []):
        plan = make_plan(Problem(gpus, (d,)), solver)
        assert plan.started_compute == 0, solver
    gpus2 = (PlanGpu("n1", 0, A100), PlanGpu("n1", 1, A100))
    plan = make_plan(Problem(gpus2, (d,)), "heuristic")
    assert plan.started_compute == 8
    _replay_ok(plan)


def test_mig_parted_yaml_has_the_proposed_counts():
    gpus = (PlanGpu("node 1", 0, A100), PlanGpu("node 1", 1, A100))
    plan = make_plan(Problem(gpus, _want("3g.40gb", "1g.10gb", "1g.10gb")), "heuristic")
    from gputui.cli.mig.plan_view import yaml_of

    counts = parse_counts(yaml_of(plan))
    assert list(counts) == ["gputui-node-1"]
    total: dict[str, int] = {}
    for per in counts["gputui-node-1"].values():
        for p, n in per.items():
            total[p] = total.get(p, 0) + n
    assert total == {"3g.40gb": 1, "1g.10gb": 2}


def _random_problem(seed: int, n_gpus: int):
    rnd = random.Random(seed)
    profiles = ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]
    gpus = []
    for i in range(n_gpus):
        lay = rnd.choice(all_layouts(A100)) if rnd.random() < 0.6 else ()
        insts = tuple(
            Instance(k + 1, s, holders=(Work(f"job {i}-{k}", "x"),) if rnd.random() < 0.5 else ())
            for k, s in enumerate(lay)
        )
        gpus.append(PlanGpu(f"n{i // 4}", i % 4, A100, insts))
    demands = _want(*(rnd.choice(profiles) for _ in range(rnd.randint(0, 3 * n_gpus))))
    return Problem(tuple(gpus), demands)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6))
def test_every_plan_replays_and_the_heuristic_never_beats_the_optimum(seed, n):
    problem = _random_problem(seed, n)
    heur = make_plan(problem, "heuristic")
    _replay_ok(heur)
    assert heur.bound is None or heur.objective <= heur.bound + 1e-9
    assert heur.objective >= 0  # keeping everything is always possible
    if solve_ip.available():
        exact = make_plan(problem, "highs")
        _replay_ok(exact)
        assert exact.method.startswith("HiGHS")
        assert heur.objective <= exact.objective + 1e-9
        assert exact.objective <= heur.bound + 1e-9 if heur.bound is not None else True
        # nothing started twice, and every start is on an instance of its profile
        keys = [d.key for gp in exact.gpus for _, d in gp.starts]
        assert len(keys) == len(set(keys))
        assert all(s.profile == d.needs[0][0] for gp in exact.gpus for s, d in gp.starts)


@needs_highs
def test_sixty_four_gpus_plan_in_under_five_seconds():
    gpus = tuple(PlanGpu(f"n{i // 8}", i % 8, A100) for i in range(64))
    rnd = random.Random(3)
    profiles = ["1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"]
    plan = make_plan(Problem(gpus, _want(*(rnd.choice(profiles) for _ in range(250)))))
    assert plan.method.startswith("HiGHS") and plan.seconds < 5.0
    _replay_ok(plan)


def test_without_highs_the_heuristic_answers_and_says_why(monkeypatch):
    monkeypatch.setattr(solve_ip, "available", lambda: False)
    gpus = (PlanGpu("n1", 0, A100),)
    plan = make_plan(Problem(gpus, _want("4g.40gb", "3g.40gb")), "auto")
    assert plan.method.startswith("heuristic") and "HiGHS is not installed" in plan.method
    assert plan.started_compute == 7 and plan.gap == 0.0
