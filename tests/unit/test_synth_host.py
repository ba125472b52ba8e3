"""Simulated nodes' CPUs and host memory: sizes by GPU model and count, memory in use following the jobs."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from gputui.core.model import NodeResources
from gputui.sources.recording import RecordingReader
from gputui.synth import synth_cluster
from gputui.synth.host_specs import BASE_USED_MIB, GIB, host_for


@pytest.mark.parametrize(
    ("gpu", "count", "cpus", "gib"),
    [
        ("NVIDIA A100-SXM4-40GB", 4, 64, 512),
        ("NVIDIA A100-SXM4-40GB", 8, 128, 1024),
        ("NVIDIA A100-SXM4-80GB", 8, 128, 2048),
        ("NVIDIA H100 80GB HBM3", 2, 96, 1024),
        ("NVIDIA H100 80GB HBM3", 8, 112, 2048),
        ("NVIDIA H200", 8, 112, 2048),
        ("a GPU the table lacks", 2, 64, 512),
    ],
)
def test_sizes_by_model_and_count(gpu, count, cpus, gib):
    assert host_for(gpu, count) == NodeResources(cpus=cpus, memory_mib=gib * GIB)


def test_demo_nodes_have_sizes_and_memory_in_use_that_follows_their_jobs():
    r = RecordingReader(FIXTURES / "demo" / "demo-cluster.gtrec")
    try:
        frames = [r.frame(i) for i in range(0, r.frame_count, 10)]
    finally:
        r.close()
    sizes = {n.name: (n.resources.cpus, n.resources.memory_mib // GIB) for n in frames[0].nodes}
    assert sizes == {"node01": (64, 512), "node02": (64, 512), "node03": (96, 1024), "node04": (64, 1024)}
    for snap in frames:
        for n in snap.nodes:
            res = n.resources
            assert res.cpus_alloc is None and res.memory_alloc_mib is None  # no workload manager in the demo
            assert BASE_USED_MIB <= res.memory_used_mib <= res.memory_mib
    node04 = [s.node("node04") for s in frames]
    # before its MPS daemon starts (20 s) node04 runs nothing: only the base; with clients it holds more
    assert node04[0].resources.memory_used_mib == BASE_USED_MIB
    assert node04[10].resources.memory_used_mib > BASE_USED_MIB + 8 * GIB
    used = [s.node("node01").resources.memory_used_mib for s in frames]
    assert len(set(used)) > 10  # it moves as jobs come, grow and go


def test_synthetic_cluster_nodes_carry_resources():
    snap = next(iter(synth_cluster(3, 8, "NVIDIA H100 80GB HBM3", seconds=2, seed=7)))
    assert [n.resources.cpus for n in snap.nodes] == [112] * 3
    assert all(n.resources.memory_mib == 2048 * GIB for n in snap.nodes)
    again = next(iter(synth_cluster(3, 8, "NVIDIA H100 80GB HBM3", seconds=2, seed=7)))
    assert again == snap
