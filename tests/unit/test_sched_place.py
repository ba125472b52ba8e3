"""Placement at node and device granularity, from synthetic nodes and from snapshots."""

from __future__ import annotations

from sched_helpers import cluster, layout, place

from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsDaemon, NodeSnapshot, ProcessInfo
from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, state_from_snapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.state import ANY

A100 = GpuSpec()


def test_eight_gpus_on_four_gpu_nodes_take_two_whole_nodes():
    s = cluster(("node[01-04]", 4, A100))
    alloc = place(s, "--gpus=8", job=1)
    assert layout(alloc) == [("node01", (0, 1, 2, 3)), ("node02", (0, 1, 2, 3))]
    assert s.totals[ANY] == 8


def test_total_uses_one_node_when_one_will_do_and_best_fit():
    s = cluster(("node[01-03]", 4, A100))
    place(s, "--gpus=3", job=1)  # node01 keeps 1 free
    assert layout(place(s, "--gpus=1")) == [("node01", (3,))]  # the tightest node
    assert layout(place(s, "--gpus=1", policy="spread")) == [("node02", (0,))]
    assert layout(place(s, "--gpus=6")) == [("node02", (0, 1, 2, 3)), ("node03", (0, 1))]


def test_total_on_fixed_node_count_gives_each_node_one_at_least():
    s = cluster(("node[01-03]", 4, A100))
    alloc = place(s, "--gpus=3 --nodes=3")
    assert [len(n.gpus) for n in alloc.nodes] == [1, 1, 1]


def test_per_node_count_gang_is_all_or_nothing():
    s = cluster(("node[01-02]", 4, A100))
    place(s, "--gpus=2 -w node02", job=1)
    assert place(s, "-N 2 --gpus-per-node=3") is None
    before = s.fingerprint()
    assert layout(place(s, "-N 2 --gpus-per-node=2")) == [("node01", (0, 1)), ("node02", (2, 3))]
    assert s.fingerprint() == before  # finding never changes the state


def test_nodelist_must_be_used_and_exclude_avoided():
    s = cluster(("node[01-04]", 4, A100))
    assert layout(place(s, "--gres=gpu:1 -w node03")) == [("node03", (0,))]
    assert [n.node for n in place(s, "--gpus=8 -w node04").nodes] == ["node01", "node04"]
    assert [n.node for n in place(s, "--gpus=8 -x node01").nodes] == ["node02", "node03"]


def test_gpu_type_matches_family_model_and_product_name():
    s = cluster(("a[1-2]", 2, A100), ("h[1-2]", 2, GpuSpec(model="H100-80GB")))
    assert [n.node for n in place(s, "--gpus=h100:2").nodes] == ["h1"]
    assert [n.node for n in place(s, "--gpus=A100-40GB:2").nodes] == ["a1"]
    assert place(s, "--gpus=h100:5") is None


def test_exclusive_takes_whole_idle_nodes():
    s = cluster(("node[01-03]", 4, A100))
    place(s, "--gpus=1", job=1)
    alloc = place(s, "--gpus=1 --exclusive", job=2)
    assert layout(alloc) == [("node02", (0, 1, 2, 3))] and alloc.nodes[0].exclusive
    assert place(s, "-N 2 --exclusive") is None  # only node03 is idle
    assert place(s, "--gpus=1 -w node02") is None  # an exclusive node takes nothing else
    ledger.release(s, alloc, 2)
    s.audit()
    assert layout(place(s, "-N 2 --exclusive")) == [("node02", (0, 1, 2, 3)), ("node03", (0, 1, 2, 3))]


def test_device_request_gets_exactly_those_gpus_or_nothing():
    s = cluster(("node[01-02]", 4, A100))
    assert layout(place(s, "-w node01 --gres=gpu:1,3", job=1)) == [("node01", (1, 3))]
    assert place(s, "-w node01 --gpu-ids=0,1") is None  # GPU 1 is taken: no substitute
    assert layout(place(s, "-w node01 --gpu-ids=0,2")) == [("node01", (0, 2))]


def test_gpu_mem_filters_small_gpus():
    s = cluster(("small", 2, GpuSpec(model="A30")), ("big", 2, GpuSpec(model="A100-80GB")))
    assert layout(place(s, "--gpus=1 --gpu-mem=40G")) == [("big", (0,))]


def _snap(**gpu_kw) -> ClusterSnapshot:
    gpus = tuple(GpuSnapshot(index=i, uuid=f"GPU-{i}", name="NVIDIA A100-SXM4-40GB", memory_total_mib=40960, **gpu_kw)
                 for i in range(2))  # fmt: skip
    return ClusterSnapshot(timestamp=0.0, nodes=(NodeSnapshot("n1", gpus),))


def test_foreign_processes_make_a_gpu_busy_by_default():
    busy = _snap(processes=(ProcessInfo(pid=77, type="C", used_memory_mib=100),))
    s = state_from_snapshot(busy)
    assert s.totals.get(ANY, 0) == 0
    assert state_from_snapshot(busy, SchedulerConfig(foreign_busy=False)).totals[ANY] == 2
    own = state_from_snapshot(busy, own_pids={("n1", 77)})
    assert own.totals[ANY] == 2


def test_mps_server_is_not_foreign_load_but_clients_are_counted():
    snap = _snap(
        mps=MpsDaemon(running=True, server_pid=5, pipe_directory="/run/mps"),
        processes=(ProcessInfo(pid=5, type="C", command="nvidia-cuda-mps-server"), ProcessInfo(pid=9, type="M+C")),
    )
    s = state_from_snapshot(snap)
    g = s.nodes[0].gpus[0]
    assert not g.busy and g.mps_on and g.mps_clients == 1 and g.mps_pipe == "/run/mps"
    assert s.totals.get(ANY, 0) == 0  # an MPS client is running: not free as a whole
    assert s.totals["mps"] == 2


def test_lost_gpu_is_never_placed():
    s = state_from_snapshot(_snap(lost=True))
    assert s.totals.get(ANY, 0) == 0 and s.idle_mask == 0
