"""The resource model: node CPUs and memory, CPU-only jobs, shards, thousandths of a GPU, constraints, MPS room."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sched_helpers import apply_release_stream, check_reservations_kept, cluster, gpu_state, layout, place

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.explain import explain
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.policies import POLICIES, get_policy
from gputui.core.scheduler.queue import Scheduler

A100 = GpuSpec()
MPS = GpuSpec(mps=True)


def test_options_have_slurms_meaning() -> None:
    r = parse_options("-n 4 -c 2 --mem-per-cpu=2G --constraint='V100M16|v100m32&nvlink' -- python etl.py")
    assert (r.kind, r.ntasks, r.cpus_per_task, r.mem_per_cpu_mib) == ("cpu", 4, 2, 2048)
    assert r.constraint == (("v100m16",), ("v100m32", "nvlink"))
    assert r.describe() == "8 CPUs, 2 GiB per CPU"
    g = parse_options("--gpus=2 --cpus-per-gpu=8 --mem-per-gpu=64G --gpu-mem=40G")
    assert (g.kind, g.cpus_per_gpu, g.mem_per_gpu_mib, g.gpu_mem_mib) == ("count", 8, 65536, 40960)
    assert parse_options("--gres=shard:3").kind == "shard" and parse_options("--gpu-milli=250").gpu_milli == 250
    assert parse_options("--mem=0 -c 1").mem_mib == 0  # Slurm: all of the node's memory
    assert parse_options("--partition=gpu -c 2").ignored == ("--partition",)


def test_cpu_only_job_goes_where_cpus_are_free_and_takes_no_gpu() -> None:
    s = cluster(("node[01-02]", 2, A100), cpus=8, mem_mib=32768)
    before = [(g.holder, g.contrib) for n in s.nodes for g in n.gpus]
    a = place(s, "-c 6 --mem=8G", job=1)
    assert [(ng.node, ng.gpus, ng.cpu_milli, ng.mem_mib) for ng in a.nodes] == [("node01", (), 6000, 8192)]
    assert [(g.holder, g.contrib) for n in s.nodes for g in n.gpus] == before
    b = place(s, "-c 4", job=2)  # node01 has 2 CPUs left: node02
    assert layout(b) == [("node02", ())]
    assert place(s, "-c 5") is None
    assert layout(place(s, "--gpus=1 -c 2")) == [("node01", (0,))]  # the GPUs of node01 are still free
    assert place(s, "--gpus=1 -c 5") is None


def test_thousandths_of_cpus_map_a_traces_millicores_exactly() -> None:
    s = cluster(("node[01-02]", 1, A100), cpus=2)
    for j in range(1, 4):
        assert layout(place(s, "--cpu-milli=600", job=j)) == [("node01", ())]  # 1.8 of node01's 2 CPUs
    assert layout(place(s, "--cpu-milli=300 --gpu-milli=500", job=4)) == [("node02", (0,))]
    assert layout(place(s, "--cpu-milli=200 --gpu-milli=500")) == [("node02", (0,))]  # the tighter GPU share
    assert layout(place(s, "--cpu-milli=200", job=5)) == [("node01", ())]  # the fewest CPUs that fit: exactly full
    assert (s.nodes[0].cpu_free, s.nodes[1].cpu_free) == (0, 1700)
    r = parse_options("--cpu-milli=2500 --mem=4G")
    assert (r.kind, r.describe()) == ("cpu", "2.5 CPUs, 4 GiB per node")
    with pytest.raises(RequestError, match="--cpu-milli: needs 2.5 CPUs on a node; the largest node has 2"):
        Scheduler(s).submit(r, 0)


def test_cpu_bound_gpu_job_skips_the_node_without_cpus() -> None:
    s = cluster(("node[01-02]", 4, A100), cpus=16)
    place(s, "-c 14", job=1)  # node01: 2 CPUs left, 4 GPUs free
    assert layout(place(s, "--gpus=2 --cpus-per-gpu=4")) == [("node02", (0, 1))]
    assert layout(place(s, "--gpus=2 --cpus-per-gpu=1")) == [("node01", (0, 1))]


def test_memory_binds_per_node_per_cpu_and_per_gpu() -> None:
    s = cluster(("node[01-02]", 2, A100), cpus=64, mem_mib=65536)
    place(s, "--mem=48G", job=1)
    assert layout(place(s, "--mem-per-cpu=10G -c 2")) == [("node02", ())]
    assert layout(place(s, "--gpus=2 --mem-per-gpu=8G")) == [("node01", (0, 1))]
    assert layout(place(s, "--gpus=2 --mem-per-gpu=9G")) == [("node02", (0, 1))]
    assert layout(place(s, "--mem=0")) == [("node02", ())]  # all of it: only a node with nothing allocated


def test_exclusive_takes_every_cpu_and_all_memory() -> None:
    s = cluster(("node[01-02]", 2, A100), cpus=8, mem_mib=16384)
    a = place(s, "--exclusive -N 1", job=1)
    assert [(ng.node, ng.cpu_milli, ng.mem_mib) for ng in a.nodes] == [("node01", 8000, 16384)]
    assert layout(place(s, "-c 1")) == [("node02", ())]
    place(s, "-c 1", job=2)
    assert place(s, "--exclusive -N 1") is None  # node02 runs a CPU-only job: not idle


def test_release_restores_exact_free_state() -> None:
    s = cluster(("node[01-02]", 2, A100), cpus=8, mem_mib=16384, shards_per_gpu=4)
    for r in ("--gres=shard:1", "--gpu-milli=300"):
        prepare(s, parse_options(r))  # index the share kinds up front, as a first request of each does
    prepare(s, parse_options("-c 2 --mem=1G"))  # and the CPU and memory indexes
    first = s.fingerprint()
    allocs = [place(s, r, job=i) for i, r in enumerate(["-c 3 --mem=4G", "--gres=shard:3", "--gpu-milli=300",
                                                         "--gpus=1 -c 2", "-c 5 --mem=12G"], start=1)]  # fmt: skip
    assert all(a is not None for a in allocs)
    for i, a in reversed(list(enumerate(allocs, start=1))):
        ledger.release(s, a, i)
        s.audit()
    assert s.fingerprint() == first


def test_shards_and_thousandths_share_one_gpu_and_exclude_whole_use() -> None:
    s = cluster(("n", 2, A100), shards_per_gpu=4, cpus=64)
    a = place(s, "--gres=shard:3", job=1)
    assert [(g.index, g.shards) for g in a.nodes[0].gpus] == [(0, 3)]
    assert [(g.index, g.shards) for g in place(s, "--gres=shard:1", job=2).nodes[0].gpus] == [(0, 1)]  # best fit
    assert [g.index for g in place(s, "--gres=shard:2", job=3).nodes[0].gpus] == [1]
    assert place(s, "--gpus=1") is None  # both GPUs are cut into shards now
    assert place(s, "--gpu-milli=100") is None  # and a GPU with shards out takes no thousandths
    m = cluster(("n", 2, A100), cpus=64)
    for j in range(1, 4):
        assert [g.index for g in place(m, "--gpu-milli=300", job=j).nodes[0].gpus] == [0]
    assert [g.index for g in place(m, "--gpu-milli=200", job=4).nodes[0].gpus] == [1]  # 100 left on GPU 0
    assert [g.index for g in place(m, "--gpu-milli=100", job=5).nodes[0].gpus] == [0]  # exactly full
    assert place(m, "--gpus=1") is None  # both GPUs carry thousandths


def test_decision_environment_of_a_cpu_only_and_a_shard_job() -> None:
    q = Scheduler(cluster(("n", 1, A100), cpus=8, shards_per_gpu=4))
    q.submit(parse_options("-n 2 -c 2 --mem=1G -J etl"), 0)
    q.submit(parse_options("--gres=shard:2"), 0)
    cpu, shard = q.schedule(0)
    env = cpu.env_for("n")
    assert env["CUDA_VISIBLE_DEVICES"] == "" and "SLURM_JOB_GPUS" not in env  # CUDA sees no GPU
    assert (env["SLURM_CPUS_ON_NODE"], env["SLURM_NTASKS"], env["SLURM_MEM_PER_NODE"]) == ("4", "2", "1024")
    senv = shard.env_for("n")
    assert senv["SLURM_SHARDS_ON_NODE"] == "2" and senv["CUDA_VISIBLE_DEVICES"].startswith("GPU-")


def test_constraint_alternatives_match_node_features_and_gpu_models() -> None:
    specs = [NodeSpec("a", (GpuSpec(model="V100M16"),), features=("ib",)), NodeSpec("b", (GpuSpec(model="V100M32"),)),
             NodeSpec("c", (GpuSpec(model="T4"),))]  # fmt: skip
    s = state_from_specs(specs)
    assert layout(place(s, "--gpus=1 --constraint='v100m16|V100M32'", job=1)) == [("a", (0,))]
    assert layout(place(s, "--gpus=1 --constraint='v100m16|v100m32'")) == [("b", (0,))]
    assert layout(place(s, "-c 1 --constraint=ib")) == [("a", ())]
    assert place(s, "--gpus=1 --constraint='t4&ib'") is None
    with pytest.raises(RequestError, match="--constraint: no node has a10"):
        Scheduler(s).submit(parse_options("--gpus=1 --constraint=a10"), 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("-c 100", "--cpus-per-task: needs 100 CPUs on a node; the largest node has 64"),
        ("-n 65", "--ntasks: needs 65 CPUs on a node; the largest node has 64"),
        ("--gpus=1 --cpus-per-gpu=65", "--cpus-per-gpu: needs 65 CPUs on a node; the largest node has 64"),
        ("--mem=600G", "--mem: needs 600 GiB on a node; the largest node has 512 GiB"),
        ("--gres=shard:1", "--gres=shard: no GPU is cut into shards"),
    ],
)
def test_requests_that_can_never_fit_are_refused_naming_the_option(options: str, message: str) -> None:
    s = cluster(("node[01-02]", 2, A100), cpus=64, mem_mib=512 * 1024)
    with pytest.raises(RequestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Scheduler(s).submit(parse_options(options), 0)


def test_waiting_cpu_job_is_explained_with_the_node_that_has_most() -> None:
    q = Scheduler(cluster(("node[01-02]", 1, A100), cpus=8))
    q.submit(parse_options("-c 6 -t 10"), 0)
    q.submit(parse_options("-c 7 -t 10"), 0)
    q.submit(parse_options("-c 4"), 0)
    q.schedule(0)
    why = explain(q, 3, 0)
    assert (why.reason, why.text) == (
        "Resources",
        "needs 4 CPUs; node01 has 2 free CPUs (of 8); 2 of 2 allowed node(s) lack them; "
        "expected to start in 00:10:00 at the latest",
    )
    q.submit(parse_options("--gpus=1 -c 3 --mem=1G"), 0)
    q.schedule(0)
    assert explain(q, 4, 0).text.startswith(
        "needs 1 GPU(s); 3 CPUs, 1 GiB per node; the cluster has 2 free; node01 has 1 free; "
        "CPUs and memory: node01 has 2 free CPUs (of 8), 512 GiB free memory (of 512 GiB); 2 of 2 allowed node(s)"
    )


def test_mps_share_goes_where_it_stays_within_100_before_any_gpu_passes_it() -> None:
    s = cluster(("n", 2, MPS), cpus=64)
    for j, r in enumerate(["--gres=mps:100", "--gres=mps:50", "--gres=mps:25"], start=1):
        place(s, r, job=j)
    gpus = s.nodes[0].gpus
    assert [g.mps_pct for g in gpus] == [100, 75]  # 50 and 25 went beside each other, not onto the full GPU
    a = place(s, "--gres=mps:30", job=4)  # fits on neither: the least loaded GPU takes it
    assert [g.index for g in a.nodes[0].gpus] == [1]
    q = Scheduler(cluster(("n", 1, MPS), cpus=64))
    q.submit(parse_options("--gres=mps:80"), 0)
    q.submit(parse_options("--gres=mps:40"), 0)
    _, d = q.schedule(0)
    assert d.warnings == ("n GPU 0: MPS shares sum to 120 %",)


# -- invariants over random clusters and streams --------------------------------------------------------------

REQUESTS = [
    "-c 2", "-c 6 --mem=12G", "-n 3 --mem-per-cpu=3G", "-N 2 -c 4", "--mem=0", "--gpus=1 -c 3",
    "--gpus=2 --cpus-per-gpu=3",
    "--gpus=1 --mem-per-gpu=10G", "--gpus=3", "--gres=shard:1", "--gres=shard:3 -c 2", "--gpu-milli=250",
    "--gpu-milli=700 --mem=2G", "--gres=mps:60 -c 2", "--exclusive -N 1", "--gpus=1 --constraint='h100|a30'",
    "-c 1 --constraint=ib", "--cpu-milli=500", "--cpu-milli=2500 --gpu-milli=460", "--cpu-milli=3250 --gpus=1",
]  # fmt: skip
PARSED = [parse_options(r) for r in REQUESTS]
MODELS = [GpuSpec(), GpuSpec(mps=True), GpuSpec(model="H100-80GB"), GpuSpec(model="A30"), GpuSpec(mig=("1g.5gb",))]
nodes = st.lists(
    st.tuples(st.lists(st.sampled_from(MODELS), max_size=3), st.sampled_from([None, 4, 8, 16]),
              st.sampled_from([None, 8192, 32768]), st.booleans()),
    min_size=1, max_size=4,
)  # fmt: skip
configs = st.builds(SchedulerConfig, policy=st.sampled_from(sorted(POLICIES)), shards_per_gpu=st.sampled_from([0, 4]),
                    default_mem_per_cpu_mib=st.sampled_from([0, 1024]))  # fmt: skip


def _state(spec, config):
    return state_from_specs(
        [NodeSpec(f"n{i}", tuple(g), cpus or 256, mem or 1 << 21, ("ib",) if ib else ())
         for i, (g, cpus, mem, ib) in enumerate(spec)], config)  # fmt: skip


def _check(state, active) -> None:
    cpus: dict[str, int] = {}
    mem: dict[str, int] = {}
    shards: dict[tuple[str, int], int] = {}
    milli: dict[tuple[str, int], int] = {}
    for alloc in active.values():
        for ng in alloc.nodes:
            cpus[ng.node] = cpus.get(ng.node, 0) + ng.cpu_milli
            mem[ng.node] = mem.get(ng.node, 0) + ng.mem_mib
            for gr in ng.gpus:
                k = (ng.node, gr.index)
                if gr.shards is not None:
                    shards[k] = shards.get(k, 0) + gr.shards
                if gr.milli is not None:
                    milli[k] = milli.get(k, 0) + gr.milli
    for node in state.nodes:
        assert cpus.get(node.name, 0) <= (node.cpu_milli or 1 << 62), f"{node.name}: CPUs over-allocated"
        assert mem.get(node.name, 0) <= (node.mem or 1 << 62), f"{node.name}: memory over-allocated"
        for g in node.gpus:
            k = (node.name, g.index)
            assert shards.get(k, 0) <= g.shards and milli.get(k, 0) <= 1000
            assert not (shards.get(k) and milli.get(k)), "shards and thousandths on one GPU"
            assert not ((shards.get(k) or milli.get(k)) and (g.holder is not None or g.mps_jobs))


@settings(max_examples=60, deadline=None)
@given(nodes, configs, st.lists(st.tuples(st.integers(0, len(PARSED) - 1), st.booleans()), max_size=30))
def test_cpus_memory_and_shares_are_never_over_allocated_and_release_restores(spec, config, stream) -> None:
    state = _state(spec, config)
    policy = get_policy(config.policy)
    asks = [prepare(state, r) for r in PARSED]  # a first use of a kind adds its index: do it up front

    def check(st, active, ri, alloc, gpus_before) -> None:  # type: ignore[no-untyped-def]
        _check(st, active)
        if alloc is not None and PARSED[ri].kind == "cpu":  # CPU-only jobs never take a GPU
            assert all(not ng.gpus for ng in alloc.nodes) and gpu_state(st) == gpus_before
        ask = asks[ri]
        if alloc is None and PARSED[ri].kind == "cpu" and (PARSED[ri].nodes or 1) == 1:  # and the indexes miss none
            fits = [n.name for n in st.nodes if ask.allowed & n.bit and n.exclusive is None
                    and n.host_fits(ask.cpu_milli, ask.mem)]  # fmt: skip
            assert not fits, f"{REQUESTS[ri]} waits, but fits on {fits}"

    apply_release_stream(state, asks, policy, stream, check)


@settings(max_examples=30, deadline=None)
@given(nodes, st.sampled_from(sorted(POLICIES)),
       st.lists(st.tuples(st.integers(0, len(PARSED) - 1), st.integers(1, 6)), min_size=1, max_size=14))  # fmt: skip
def test_backfill_never_delays_the_head_with_cpus_and_memory(spec, policy, stream) -> None:
    q = Scheduler(_state(spec, SchedulerConfig(policy=policy, shards_per_gpu=4)))
    jobs = []
    for ri, minutes in stream:
        try:
            jobs.append(q.submit(replace(PARSED[ri], time_limit_s=minutes * 60), 0))
        except RequestError:
            continue
    check_reservations_kept(q, jobs)


def test_snapshot_resources_unknown_cpus_never_bind_and_manager_allocations_count() -> None:
    from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeResources, NodeSnapshot
    from gputui.core.scheduler.build import state_from_snapshot

    gpu = GpuSnapshot(0, uuid="GPU-x", name="NVIDIA A100-SXM4-40GB", memory_total_mib=40960)
    snap = ClusterSnapshot(0.0, (
        NodeSnapshot("old", (gpu,)),  # an old recording: no resources, so no constraint
        NodeSnapshot("slurm", (gpu,), resources=NodeResources(16, 65536, cpus_alloc=12, memory_alloc_mib=60000),
                     features=("NVLink",), shares=(("shard", 4, 1),)),
    ))  # fmt: skip
    s = state_from_snapshot(snap)
    old, slurm = s.nodes
    assert (old.cpus, slurm.cpus, slurm.cpu_free, slurm.mem_free) == (None, 16, 4000, 5536)
    assert slurm.gpus[0].shards == 4 and slurm.gpus[0].shards_used == 1
    assert not s.idle_mask & slurm.bit  # the manager's jobs hold CPUs there: not free for --exclusive
    assert layout(place(s, "-c 500")) == [("old", ())]
    assert layout(place(s, "-c 2 --constraint=nvlink")) == [("slurm", ())]
    assert place(s, "-c 5 --constraint=nvlink") is None
    s.audit()
