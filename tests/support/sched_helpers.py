"""Small builders shared by the scheduler tests."""

from __future__ import annotations

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, nodes_from_pattern, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.place.finder import find_allocation
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.policies import get_policy
from gputui.core.scheduler.state import ClusterState


def cluster(*groups: tuple[str, int, GpuSpec], cpus: int | None = None, mem_mib: int | None = None,
            **config: object) -> ClusterState:  # fmt: skip
    """``cluster(("node[01-02]", 4, GpuSpec()))``: host list, GPUs per node, GPU spec; CPUs and memory per node
    default to what such a server has (``host_builds.host_build``)."""
    specs = []
    for hosts, n, spec in groups:
        specs += nodes_from_pattern(hosts, [spec] * n, cpus, mem_mib)
    return state_from_specs(specs, SchedulerConfig(**config))  # type: ignore[arg-type]


def place(state: ClusterState, options: str, job: int | None = None, policy: str = "best-fit"):
    """Find an allocation for ``options``; apply it as ``job`` when given and found."""
    alloc = find_allocation(state, prepare(state, parse_options(options)), get_policy(policy))
    if alloc is not None and job is not None:
        ledger.apply(state, alloc, job)
        state.audit()
    return alloc


def layout(alloc) -> list[tuple[str, tuple[int, ...]]]:
    return [(n.node, tuple(g.index for g in n.gpus)) for n in alloc.nodes]


def check_reservations_kept(q, jobs) -> None:  # type: ignore[no-untyped-def]
    """Run ``q`` with every job lasting exactly its limit; no job starts later than a reservation it was promised."""
    promised: dict[int, float] = {}
    now = 0.0
    for _ in range(200):
        for d in q.schedule(now):
            assert d.job_id not in promised or now <= promised[d.job_id], "started later than its reservation"
        for j in q.pending:
            if j.reservation is not None and q.head is j:
                promised[j.id] = min(promised.get(j.id, float("inf")), j.reservation[0])
        ends = [j.expected_end for j in q.running.values()]
        if not ends:
            break
        now = min(ends)
        for j in list(q.running.values()):
            if j.expected_end <= now:
                q.finish(j.id, now)
    for j in jobs:
        if j.id in promised and j.start_time is not None:
            assert j.start_time <= promised[j.id]


def gpu_state(state: ClusterState) -> list:
    """What jobs hold of every GPU, for "this did not change" checks."""
    return [(g.holder, dict(g.mps_jobs), g.shards_used, g.milli_used) for n in state.nodes for g in n.gpus]


def apply_release_stream(state, asks, policy, stream, check) -> None:  # type: ignore[no-untyped-def]
    """For each (ask index, release one) of ``stream``: apply what the ask finds, release the oldest job when asked,
    audit the indexes and call ``check(state, active, ask index, allocation, GPU state before)``; at the end
    release everything and require the state to be exactly as at the start."""
    initial = state.fingerprint()
    active = {}
    for job, (ri, release_one) in enumerate(stream, start=1):
        before = gpu_state(state)
        alloc = find_allocation(state, asks[ri], policy)
        if alloc is not None:
            assert ledger.can_apply(state, alloc)
            ledger.apply(state, alloc, job)
            active[job] = alloc
        check(state, active, ri, alloc, before)
        if release_one and active:
            j = min(active)
            ledger.release(state, active.pop(j), j)
        state.audit()
    for j in sorted(active, reverse=True):
        ledger.release(state, active.pop(j), j)
    state.audit()
    assert state.fingerprint() == initial
