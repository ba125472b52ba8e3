"""Simulated jobs drawn into a snapshot: a process per GPU, MIG device or MPS share, with memory and load.

Pids come from a range above Linux's largest pid (2**22), so they never clash with real processes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from gputui.core.mig_profiles import model_for
from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot, MpsClient, ProcessInfo
from gputui.core.scheduler.allocation import GpuGrant
from gputui.jobs.records import JobRecord

SIM_PID_BASE = 1 << 23
RANKS_PER_JOB = 256
MEM_SHARE = 0.5  # memory a job without --mem-per-gpu takes of what it was given
UNKNOWN_GPU_MIB = 16 * 1024


def sim_pid(job_id: int, rank: int) -> int:
    return SIM_PID_BASE + job_id * RANKS_PER_JOB + rank % RANKS_PER_JOB


def busy_percent(job_id: int, now: float) -> int:
    """A plausible, steady-ish load of a training job: 80-96 %, changing every few seconds, deterministic."""
    return 80 + (job_id * 7919 + int(now // 5) * 104729) % 17


@dataclass
class _Add:
    """What the simulated jobs add to one GPU."""

    processes: list[ProcessInfo] = field(default_factory=list)
    clients: list[MpsClient] = field(default_factory=list)
    util: int = 0
    mem: int = 0
    gi_mem: dict[int, int] = field(default_factory=dict)
    new_gis: list[GpuInstance] = field(default_factory=list)


def _gi_memory(gs: GpuSnapshot, gr: GpuGrant) -> int | None:
    assert gr.mig is not None
    for gi in gs.gpu_instances:
        if gi.gi_id == gr.mig.gi_id and gi.memory_total_mib is not None:
            return gi.memory_total_mib
    model = model_for(gs.name or "")
    p = model.profile(gr.mig.profile) if model else None
    return p.memory_mib_estimate if p else None


def _grant(add: _Add, gs: GpuSnapshot, rec: JobRecord, gr: GpuGrant, rank: int, now: float) -> int:
    """Add one grant's processes to ``add``; returns the next rank."""
    user, command = rec.user, rec.command_text or rec.display_name
    declared = rec.request.mem_per_gpu_mib
    total = gs.memory_total_mib or UNKNOWN_GPU_MIB
    load = busy_percent(rec.id, now)
    if gr.mig is not None:
        gi_total = _gi_memory(gs, gr) or total // 7
        cis = gr.mig.cis or ((0, None),)
        per_ci = (declared or int(gi_total * MEM_SHARE)) // len(cis)
        if gr.mig.created:
            add.new_gis.append(
                GpuInstance(
                    gr.mig.gi_id, gr.mig.profile, None, gr.mig.placement_start, gr.mig.placement_size, gi_total, 0,
                    compute_instances=tuple(ComputeInstance(ci, gr.mig.profile, mig_uuid=u) for ci, u in cis),
                )
            )  # fmt: skip
        for ci_id, _uuid in cis:
            add.processes.append(ProcessInfo(sim_pid(rec.id, rank), "C", per_ci, user, command, gr.mig.gi_id, ci_id))
            add.gi_mem[gr.mig.gi_id] = add.gi_mem.get(gr.mig.gi_id, 0) + per_ci
            add.mem += per_ci
            rank += 1
        return rank
    pid = sim_pid(rec.id, rank)
    if gr.mps_percent is not None:
        mem = gr.mps_memory_mib or declared or int(total * gr.mps_percent / 100 * MEM_SHARE)
        add.processes.append(ProcessInfo(pid, "M+C", mem, user, command))
        add.clients.append(MpsClient(pid, gr.mps_percent, mem, user, command))
        add.util += gr.mps_percent * load // 100
    else:
        mem = declared or int(total * MEM_SHARE)
        add.processes.append(ProcessInfo(pid, "C", mem, user, command))
        add.util += load
    add.mem += mem
    return rank + 1


def _apply(gs: GpuSnapshot, add: _Add) -> GpuSnapshot:
    total = gs.memory_total_mib
    used = (gs.memory_used_mib or 0) + add.mem
    changes: dict[str, object] = {
        "processes": gs.processes + tuple(add.processes),
        "memory_used_mib": min(used, total) if total is not None else used,
    }
    if not gs.mig_enabled:  # a MIG GPU reports no utilization of its own; leave its N/A alone
        changes["utilization_gpu"] = min(100, (gs.utilization_gpu or 0) + add.util)
    if add.gi_mem or add.new_gis:
        gis = []
        for gi in (*gs.gpu_instances, *add.new_gis):
            extra = add.gi_mem.get(gi.gi_id, 0) if gi.gi_id is not None else 0
            if extra:
                gi = replace(gi, memory_used_mib=(gi.memory_used_mib or 0) + extra)
            gis.append(gi)
        changes["gpu_instances"] = tuple(gis)
    if add.clients and gs.mps is not None:
        changes["mps"] = replace(gs.mps, clients=gs.mps.clients + tuple(add.clients))
    return replace(gs, **changes)  # type: ignore[arg-type]


def overlay(snapshot: ClusterSnapshot, jobs: Iterable[JobRecord], now: float) -> ClusterSnapshot:
    """``snapshot`` with every running simulated job of ``jobs`` drawn onto its GPUs."""
    by_gpu = {(n.name, g.index): g for n in snapshot.nodes for g in n.gpus}
    adds: dict[tuple[str, int], _Add] = {}
    for rec in sorted(jobs, key=lambda r: r.id):
        if rec.allocation is None:
            continue
        rank = 0
        for ng in rec.allocation.nodes:
            for gr in ng.gpus:
                gs = by_gpu.get((ng.node, gr.index))
                if gs is None:
                    continue  # the GPU is not in this frame; the next refresh fails the job
                rank = _grant(adds.setdefault((ng.node, gr.index), _Add()), gs, rec, gr, rank, now)
    if not adds:
        return snapshot
    nodes = []
    for n in snapshot.nodes:
        if any((n.name, g.index) in adds for g in n.gpus):
            gpus = tuple(_apply(g, adds[(n.name, g.index)]) if (n.name, g.index) in adds else g for g in n.gpus)
            n = replace(n, gpus=gpus)
        nodes.append(n)
    return replace(snapshot, nodes=tuple(nodes))


def overlay_pids(jobs: Iterable[JobRecord]) -> set[tuple[str, int]]:
    """(node, pid) of every simulated process of ``jobs``, as :func:`overlay` numbers them."""
    out: set[tuple[str, int]] = set()
    for rec in jobs:
        if rec.allocation is None:
            continue
        rank = 0
        for ng in rec.allocation.nodes:
            for gr in ng.gpus:
                n = len(gr.mig.cis or ((0, None),)) if gr.mig is not None else 1
                for _ in range(n):
                    out.add((ng.node, sim_pid(rec.id, rank)))
                    rank += 1
    return out
