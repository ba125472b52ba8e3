"""MIG placement (static and dynamic), slot arithmetic and the capacity bound."""

from __future__ import annotations

import pytest
from sched_helpers import cluster, place

from gputui.core.mig_profiles import load_models
from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, NodeSnapshot, ProcessInfo
from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, state_from_snapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.mig import best_start, capacity, openness, placeable, resolve_model

A100 = load_models()["A100-40GB"]


def test_two_g_ten_gb_on_a100_40gb_is_at_most_three():
    r = capacity(A100, A100.profile("2g.10gb"))
    assert (r.sm_bound, r.memory_bound, r.answer) == (3, 4, 3)
    assert r.placement_starts == (0, 2, 4)
    assert r.sm_total == 98 and r.full_gpu_sms == 108
    assert r.disagreements == ["the memory bound allows 4, the placement table 3"]


def test_one_g_five_gb_cannot_use_the_last_slot():
    r = capacity(A100, A100.profile("1g.5gb"))
    assert (r.memory_bound, r.answer) == (8, 7)


@pytest.mark.parametrize(
    ("model", "profile", "answer"),
    [("A100-40GB", "3g.20gb", 2), ("A100-40GB", "1g.10gb", 4), ("H100-80GB", "1g.10gb", 7), ("A30-24GB", "2g.12gb", 2),
     ("A30-24GB", "1g.6gb+me", 1), ("H200-141GB", "3g.71gb", 2), ("B200-180GB", "7g.180gb", 1)],
)  # fmt: skip
def test_capacity_table(model, profile, answer):
    m = load_models()[model]
    assert capacity(m, m.profile(profile)).answer == answer


def test_dynamic_dynamic_placement_fills_exactly_to_the_table():
    s = cluster(("m1", 1, GpuSpec(mig=())), mig_dynamic=True)
    for j in range(1, 4):
        assert place(s, "--gres=gpu:2g.10gb:1", job=j) is not None
    assert place(s, "--gres=gpu:2g.10gb:1") is None
    assert place(s, "--gres=gpu:1g.5gb:1") is not None  # slot 6 is still free


def test_slot_choice_keeps_most_placements_open():
    # a 3g instance at slot 4 leaves 4g.20gb creatable at 0; at slot 0 nothing of 4g would fit
    assert best_start(A100, A100.profile("3g.20gb"), 0, 0, 0) == 4
    # with slots 0-1 taken, 1g.10gb at 6 keeps 2g/3g-sized room open at 2-5
    assert best_start(A100, A100.profile("1g.10gb"), 0b11, 1, 0) == 6
    assert openness(A100, 0, 0)[0] == 7


def test_placeable_counts_compute_and_instance_limits():
    p = A100.profile("1g.5gb+me")
    assert placeable(A100, p, 0, 0, 0) == 1
    assert placeable(A100, p, 0, 0, 1) == 0
    assert placeable(A100, A100.profile("1g.5gb"), 0b1111, 4, 0) == 3


def test_static_mig_uses_existing_instances_only():
    s = cluster(("m[1-2]", 1, GpuSpec(mig=("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"))))
    a = place(s, "--gres=gpu:1g.5gb:2", job=1)
    assert [(g.mig.profile, g.mig.created) for g in a.nodes[0].gpus] == [("1g.5gb", False), ("1g.5gb", False)]
    assert a.nodes[0].node == "m1"
    assert place(s, "--gres=gpu:1g.5gb:3") is None  # never created in static mode
    assert place(s, "--gres=gpu:3g.20gb:1,gpu:2g.10gb:1,gpu:1g.5gb:2").nodes[0].node == "m2"


def test_mig_type_prefix_restricts_the_model():
    s = cluster(("a", 1, GpuSpec(mig=("1g.10gb",))), ("h", 1, GpuSpec(model="H100-80GB", mig=("1g.10gb",))))
    assert place(s, "--gres=gpu:h100_1g.10gb:1").nodes[0].node == "h"
    assert place(s, "--gres=gpu:a100_1g.10gb:1").nodes[0].node == "a"


def test_dynamic_instances_disappear_on_release():
    s = cluster(("m1", 2, GpuSpec(mig=("3g.20gb",))), mig_dynamic=True)
    before = s.fingerprint()
    a = place(s, "--gres=gpu:3g.20gb:2,gpu:1g.5gb:2", job=7)
    created = sorted((g.mig.profile, g.mig.created) for g in a.nodes[0].gpus)
    assert created == [("1g.5gb", True), ("1g.5gb", True), ("3g.20gb", False), ("3g.20gb", False)]
    ledger.release(s, a, 7)
    s.audit()
    assert s.fingerprint() == before


def _mig_snap(with_proc: bool) -> ClusterSnapshot:
    gis = (
        GpuInstance(gi_id=1, profile="3g.20gb", placement_start=4, placement_size=4,
                    compute_instances=(ComputeInstance(ci_id=0, mig_uuid="MIG-aaa"),)),
        GpuInstance(gi_id=2, profile="3g.20gb", placement_start=0, placement_size=4,
                    compute_instances=(ComputeInstance(ci_id=0, mig_uuid="MIG-bbb"),)),
    )  # fmt: skip
    procs = (ProcessInfo(pid=4, type="C", gi_id=1, ci_id=0),) if with_proc else ()
    g = GpuSnapshot(index=0, uuid="GPU-x", name="NVIDIA A100-SXM4-40GB", mig_mode_current=True, gpu_instances=gis,
                    processes=procs)  # fmt: skip
    return ClusterSnapshot(timestamp=0, nodes=(NodeSnapshot("n3", (g,)),))


def test_mig_from_snapshot_and_foreign_load_per_instance():
    s = state_from_snapshot(_mig_snap(with_proc=True))
    a = place(s, "--gres=gpu:3g.20gb:1", job=1)
    assert a.nodes[0].gpus[0].mig.cis == ((0, "MIG-bbb"),)  # instance 1 runs a foreign process
    assert place(s, "--gres=gpu:3g.20gb:1") is None
    free = state_from_snapshot(_mig_snap(with_proc=True), SchedulerConfig(foreign_busy=False))
    assert free.totals["m:3g.20gb"] == 2


def test_unplaceable_snapshot_instance_blocks_dynamic_creation():
    snap = _mig_snap(False)
    node = snap.nodes[0]
    gpu = node.gpus[0]
    odd = GpuInstance(gi_id=None, profile=None)
    snap = ClusterSnapshot(0, (NodeSnapshot("n3", (gpu.__class__(**{**{f: getattr(gpu, f) for f in gpu.__slots__},
                                                                    "gpu_instances": (odd,)}),)),))  # fmt: skip
    s = state_from_snapshot(snap, SchedulerConfig(mig_dynamic=True))
    assert not s.nodes[0].gpus[0].dyn_ok and s.totals.get("m:1g.5gb", 0) == 0


def test_resolve_model_accepts_aliases_and_short_forms():
    assert resolve_model("A100-40GB").key == "A100-40GB"
    assert resolve_model("a100-80").key == "A100-80GB"
    assert resolve_model("NVIDIA A100-SXM4-40GB").key == "A100-40GB"
    assert resolve_model("h100").key == "H100-80GB"
    assert resolve_model("NVIDIA H200").key == "H200-141GB"
    assert resolve_model("rtx 4090") is None
