"""Property tests over random clusters and request streams: the scheduler's invariants."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st
from sched_helpers import apply_release_stream, check_reservations_kept

from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.parse.script import parse_script
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.policies import POLICIES, get_policy
from gputui.core.scheduler.queue import Scheduler

GPU_KINDS = [
    GpuSpec(), GpuSpec(mps=True), GpuSpec(mig=()), GpuSpec(mig=("3g.20gb", "2g.10gb", "1g.5gb")),
    GpuSpec(mig=("1g.10gb", "1g.10gb")), GpuSpec(model="H100-80GB"), GpuSpec(model="A30", mig=("2g.12gb",)),
]  # fmt: skip
REQUESTS = [
    "--gpus=1", "--gpus=3", "--gpus=6", "--gpus=h100:1", "-N 2 --gpus-per-node=2", "--gpus=2 --exclusive",
    "-N 1 --exclusive", "-w n0 --gpu-ids=0", "-w n1 --gpu-ids=0,1", "--gres=gpu:1g.5gb:1", "--gres=gpu:2g.10gb:1",
    "--gres=gpu:3g.20gb:1", "--gres=gpu:1g.10gb:2", "--gres=gpu:1g.5gb:2,gpu:3g.20gb:1", "--gres=gpu:2g.12gb:1",
    "--gres=mps:40", "--gres=mps:70 --mem-per-gpu=30G",
    "--gpus-per-node=2 --export=CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30",
]  # fmt: skip
PARSED = [parse_options(r) for r in REQUESTS]

clusters = st.lists(st.lists(st.sampled_from(GPU_KINDS), min_size=1, max_size=4), min_size=1, max_size=4)
configs = st.builds(
    SchedulerConfig, mig_dynamic=st.booleans(), mps_percent_cap=st.sampled_from([None, 100]),
    mps_strict_memory=st.booleans(), policy=st.sampled_from(sorted(POLICIES)),
)  # fmt: skip


def build(layout, config):
    return state_from_specs([NodeSpec(f"n{i}", tuple(g)) for i, g in enumerate(layout)], config)


def check_exclusive_use(state, active):
    """No whole GPU twice, no overlapping MIG slots, MPS only on MPS GPUs and never beside a whole-GPU job."""
    whole: dict[tuple[str, int], int] = {}
    mps: dict[tuple[str, int], set[int]] = {}
    for job, alloc in active.items():
        for ng in alloc.nodes:
            node = state.by_name[ng.node]
            for gr in ng.gpus:
                k = (ng.node, gr.index)
                g = node.by_index[gr.index]
                if gr.mig is None and gr.mps_percent is None:
                    assert k not in whole and k not in mps, f"GPU {k} given twice"
                    whole[k] = job
                elif gr.mps_percent is not None:
                    assert g.mps_on and not g.mig, f"MPS share on a non-MPS GPU {k}"
                    assert k not in whole, f"MPS share on GPU {k} held whole"
                    mps.setdefault(k, set()).add(job)
    for node in state.nodes:
        for g in node.gpus:
            used = 0
            for s in g.instances:
                assert not (s.mask & used), f"overlapping MIG slots on {node.name} GPU {g.index}"
                used |= s.mask
            if g.mig and g.model is not None:
                assert sum(s.compute for s in g.instances) <= g.model.compute_slices
            assert not (g.holder is not None and g.mps_jobs)
            assert g.mps_clients <= state.config.mps_max_clients


@settings(max_examples=40, deadline=None)
@given(clusters, configs, st.lists(st.tuples(st.integers(0, len(PARSED) - 1), st.booleans()), max_size=25))
def test_allocations_never_overlap_and_release_restores_state(layout, config, stream):
    state = build(layout, config)
    policy = get_policy(config.policy)
    asks = [prepare(state, r) for r in PARSED]  # a first use of a GPU type adds its index: do it up front
    apply_release_stream(state, asks, policy, stream, lambda st, active, *_: check_exclusive_use(st, active))


@settings(max_examples=30, deadline=None)
@given(
    clusters,
    st.sampled_from(sorted(POLICIES)),
    st.lists(st.tuples(st.integers(0, len(PARSED) - 1), st.integers(1, 6)), min_size=1, max_size=14),
)
def test_backfill_never_delays_the_head_reservation(layout, policy, stream):
    """Jobs run exactly their limits; no job starts later than any reservation it was promised."""
    state = build(layout, SchedulerConfig(policy=policy))
    q = Scheduler(state)
    jobs = []
    for ri, minutes in stream:
        req = PARSED[ri]
        try:
            from dataclasses import replace

            jobs.append(q.submit(replace(req, time_limit_s=minutes * 60), 0))
        except RequestError:
            continue  # cannot run on this random cluster at all
    check_reservations_kept(q, jobs)


FRAGMENTS = st.sampled_from([
    "--gpus=", "-G", "--gres=", "gpu:", "mps:", "gpu/MIG-", "1g.10gb", "a100_", ":", ",", "=", "-N", "--nodes=",
    "--nodelist=", "node[01-0", "]", "-w", "-x", "--time=", "1-2:3", "INFINITE", "--exclusive", "--gpu-ids=", "0",
    "7", "-1", "99999999999999", "--export=", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=", "--dependency=afterok:",
    "--nice", "--priority=", "--mem-per-gpu=", "G", " ", "'", '"', "\\", "--", "x", "#", "$HOME", "--job-name=",
    "-t", "3g.20gb", "--gpus-per-node=", "shard:", "9g.9gb",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=14).map("".join) | st.text(max_size=40))
def test_parser_fuzzing_raises_only_request_errors(text):
    try:
        parse_options(text)
    except RequestError as e:
        assert "\n" not in str(e)
    with contextlib.suppress(RequestError):
        parse_script("#!/bin/sh\n#SBATCH " + text + "\nexport " + text + "\n")
