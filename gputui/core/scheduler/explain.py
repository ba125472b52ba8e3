"""Why a job waits, in Slurm's word and in plain words, built on demand from the current state."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.scheduler.jobs import PENDING, Job
from gputui.core.scheduler.parse.timespec import format_duration
from gputui.core.scheduler.place.host import ALL_MEMORY
from gputui.core.scheduler.place.share import share_free
from gputui.core.scheduler.request import cpu_text, mib_text
from gputui.core.scheduler.state import ANY, MPS, ClusterState, GpuUnit, NodeState


@dataclass(frozen=True, slots=True)
class Explanation:
    job_id: int
    state: str
    reason: str  # Slurm's word: Resources, Priority, Dependency, ...
    text: str
    reservation_time: float | None = None


def _holders(g: GpuUnit) -> str | None:
    """Who has this GPU, in words, or None when it is free."""
    if g.lost:
        return "lost"
    if g.node.exclusive is not None:
        return f"held by job {g.node.exclusive} (whole node)"
    if g.busy:
        return "busy with processes gputui did not start"
    if g.holder is not None:
        return f"held by job {g.holder}"
    if g.mps_jobs:
        return "shared through MPS by job " + ", ".join(str(j) for j in sorted(g.mps_jobs))
    if g.foreign_clients:
        return f"used by {g.foreign_clients} MPS client(s) gputui did not start"
    return None


def _whole_detail(state: ClusterState, job: Job) -> str:
    key = job.ask.key
    nodes = [n for n in (job.ask.required or state.nodes) if job.ask.allowed & n.bit]
    typed = [n for n in nodes if any(key[2:] in g.tags for g in n.gpus)]  # name a node that has the type at all
    best = max(typed or nodes, key=lambda n: (n.counts.get(key, 0), -n.idx), default=None)
    total = state.totals.get(key, 0)
    parts = [f"the cluster has {total} free"]
    if best is not None:
        taken = [f"GPU {g.index} {h}" for g in best.gpus if (h := _holders(g)) and key[2:] in g.tags]
        line = f"{best.name} has {best.counts.get(key, 0)} free"
        if taken:
            line += " (" + "; ".join(taken[:4]) + (", ..." if len(taken) > 4 else "") + ")"
        parts.append(line)
    return "; ".join(parts)


def _mig_detail(state: ClusterState, job: Job) -> str:
    out = []
    nodes = [n for n in (job.ask.required or state.nodes) if job.ask.allowed & n.bit]
    for profile, need in job.request.mig:
        key = "m:" + profile

        def has_profile(n: NodeState, profile: str = profile) -> bool:
            return any(s.name == profile for g in n.gpus for s in g.instances)

        # the node that matters: one that has the profile at all (free or held), the most free first
        best = max(nodes, key=lambda n: (has_profile(n), n.counts.get(key, 0), -n.idx), default=None)
        if best is None:
            continue
        free = best.counts.get(key, 0)
        if free >= need:
            continue
        held = [
            f"GPU {g.index} by " + (f"job {s.holder}" if s.holder is not None else "processes gputui did not start")
            for g in best.gpus for s in g.instances
            if s.name == profile and (s.holder is not None or s.busy)
        ]  # fmt: skip
        if not has_profile(best):
            out.append(f"no allowed node has a {profile} instance now")
            continue
        line = f"{best.name} has {free} free {profile}"
        if held:
            line += " (held: " + ", ".join(held[:4]) + (", ..." if len(held) > 4 else "") + ")"
        out.append(line)
    return "; ".join(out) or "the instances exist, but not together on one node"


def _mps_detail(state: ClusterState, job: Job) -> str:
    nodes = [n for n in (job.ask.required or state.nodes) if job.ask.allowed & n.bit]
    best: NodeState | None = max(nodes, key=lambda n: (n.counts.get(MPS, 0), -n.idx), default=None)
    if best is None or not any(g.mps_on for g in best.gpus):
        return "no allowed node has a GPU with an MPS daemon running"
    notes = []
    cap = state.config.mps_percent_cap
    for g in best.gpus:
        if not g.mps_on:
            continue
        h = _holders(g)
        if g.holder is not None or g.busy:
            notes.append(f"GPU {g.index} {h}")
        elif cap is not None and g.mps_pct + (job.request.mps_percent or 0) > cap:
            notes.append(f"GPU {g.index} has {g.mps_pct} % of the {cap} % cap in use")
        elif g.mps_clients >= state.config.mps_max_clients:
            notes.append(f"GPU {g.index} has {g.mps_clients} MPS clients (the limit)")
    line = f"{best.name} has {best.counts.get(MPS, 0)} MPS GPU(s) ready"
    return line + (" (" + "; ".join(notes) + ")" if notes else "")


def _share_detail(state: ClusterState, job: Job) -> str:
    req = job.request
    shard = req.kind == "shard"
    nodes = [n for n in (job.ask.required or state.nodes) if job.ask.allowed & n.bit]
    most = max((share_free(g, shard) for n in nodes for g in n.gpus), default=0)
    if shard:
        return f"the most free shards on one GPU: {most}"
    return f"the most free on one GPU: {most / 1000:.3f}"


def _device_detail(state: ClusterState, job: Job) -> str:
    node = job.ask.required[0]
    taken = []
    for i in job.request.gpu_ids:
        g = node.by_index[i]
        if ANY not in g.contrib:
            taken.append(f"GPU {i} {_holders(g) or 'not free'}")
    return "; ".join(taken) or "the GPUs are free"


def _host_detail(state: ClusterState, job: Job) -> str:
    """Where CPUs or memory are what is missing: the allowed node with the most free CPUs, in words; '' if no
    allowed node lacks them."""
    ask = job.ask
    nodes = [n for n in (ask.required or state.nodes) if ask.allowed & n.bit]
    short = [n for n in nodes if not n.host_fits(ask.cpu_milli, ask.mem)]
    if not short:
        return ""
    best = max(short, key=lambda n: (n.cpu_free if n.cpus is not None else 1 << 60, n.mem_free, -n.idx))
    parts = []
    if best.cpus is not None:
        parts.append(f"{cpu_text(best.cpu_free, 'free ')} (of {best.cpus})")
    if best.mem is not None and ask.mem:
        parts.append(f"{mib_text(best.mem_free)} free memory (of {mib_text(best.mem)})")
    if ask.mem == ALL_MEMORY:
        parts.append("memory allocated (the job needs all of a node's)")
    where = f"{len(short)} of {len(nodes)} allowed node(s) lack them" if len(nodes) > 1 else "it lacks them"
    return f"{best.name} has {', '.join(parts) or 'too little'}; {where}"


def _cpu_detail(state: ClusterState, job: Job) -> str:
    return _host_detail(state, job) or "the CPUs are free, but not on the nodes it may use together"


def _nodes_detail(state: ClusterState, job: Job) -> str:
    idle = [n.name for n in state.nodes if state.idle_mask & n.bit and job.ask.allowed & n.bit]
    return f"{len(idle)} node(s) idle" + (f" ({', '.join(idle[:4])})" if idle else "")


def explain(scheduler, job_id: int, now: float) -> Explanation:  # type: ignore[no-untyped-def]
    """The reason a job waits (or that it does not), in Slurm's word and plain words."""
    job: Job = scheduler.jobs[job_id]
    if job.state != PENDING:
        where = ", ".join(job.allocation.node_names) if job.allocation else ""
        text = f"{job.state.lower()}" + (f" on {where}" if where else "")
        return Explanation(job_id, job.state, "None", text)
    req, state = job.request, scheduler.state
    need = f"needs {req.describe()}"
    res_time = job.reservation[0] if job.reservation else None
    if job.reason in ("Dependency", "DependencyNeverSatisfied"):
        waits = []
        for kind, dep in req.dependencies:
            d = scheduler.jobs[dep]
            waits.append(f"{kind}:{dep} (job {dep} is {d.state.lower()})")
        verb = "can never start" if job.reason == "DependencyNeverSatisfied" else "waits for"
        return Explanation(job_id, job.state, job.reason, f"{verb} " + ", ".join(waits))
    if job.reason == "Priority" and job.blocked_by is not None:
        head = scheduler.jobs.get(job.blocked_by)
        if head is not None and head.reservation is not None:
            at = format_duration(int(head.reservation[0] - now))
            text = f"{need}; it would fit now but would delay job {head.id}, which is reserved to start in {at}"
            return Explanation(job_id, job.state, "Priority", text, res_time)
    if job.reason == "ReqNodeNotAvail":
        down = [n.name for n in job.ask.required if all(g.lost for g in n.gpus)]
        return Explanation(job_id, job.state, job.reason, f"{need}; required node(s) not available: {', '.join(down)}")
    detail = {
        "mig": _mig_detail, "mps": _mps_detail, "device": _device_detail, "nodes": _nodes_detail, "cpu": _cpu_detail,
        "shard": _share_detail, "milli": _share_detail,
    }.get(req.kind, _whole_detail)(state, job)  # fmt: skip
    if req.exclusive and req.kind == "count":
        detail = _nodes_detail(state, job)
    if req.kind != "cpu" and (host := _host_detail(state, job)):
        detail += "; CPUs and memory: " + host
    text = f"{need}; {detail}"
    if job.reason == "Priority":  # behind the first waiting job, as in Slurm's queue
        head = scheduler.head
        text += (
            f"; waits behind higher-priority job {head.id}"
            if head is not None
            else "; waits behind higher-priority jobs"
        )
    if res_time is not None:
        text += f"; expected to start in {format_duration(int(res_time - now))} at the latest"
    reason = job.reason if job.reason != "None" else "Resources"
    return Explanation(job_id, job.state, reason, text, res_time)
