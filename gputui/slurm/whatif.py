"""What-if: the embedded scheduler on the cluster as Slurm reported it, predicting where a request would land,
and the prediction set beside Slurm's real placement.

The scheduler sees Slurm's GPUs by their GRES types, MPS offered wherever a node has ``mps`` GRES (with Slurm's
rule that a GPU's shares sum to at most 100 %), GPUs of nodes Slurm would not use (down, drained) as lost, and
every running Slurm job holding what Slurm gave it. Jobs waiting in Slurm's queue for resources or priority
are queued ahead of the request, in Slurm's priority order; jobs held or waiting on a dependency are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsDaemon, NodeSnapshot, ProcessInfo
from gputui.core.scheduler import ledger
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.preview import preview_in
from gputui.jobs.records import JobRecord
from gputui.jobs.restore import build_scheduler
from gputui.jobs.views import Preview
from gputui.slurm.requests import UNEXPRESSED
from gputui.slurm.source import SlurmPoll

#: Slurm counts MPS shares as a consumable: two mps:60 jobs do not fit on one GPU.
SLURM_CONFIG = SchedulerConfig(mps_percent_cap=100)
_HIDDEN = ProcessInfo(pid=0, type="C", command="a Slurm job this user cannot see")


def scheduling_view(poll: SlurmPoll, running: Sequence[JobRecord]) -> ClusterSnapshot:
    """The snapshot as the embedded scheduler should judge it (see the module's docstring)."""
    held = {(ng.node, g.index) for r in running if r.allocation for ng in r.allocation.nodes for g in ng.gpus}
    by_name = {n.name: n for n in poll.nodes}
    nodes = []
    for ns in poll.snapshot.nodes:
        sn = by_name.get(ns.name)
        mps = sn is not None and any(i.name == "mps" and i.count for i in sn.gres)
        down = sn is not None and not sn.available
        gpus = []
        for g in ns.gpus:
            key = (ns.name, g.index)
            gtype = poll.gpu_types.get(key)
            view: GpuSnapshot = replace(g, name=gtype or g.name, lost=g.lost or down)
            if key in held:
                view = replace(view, processes=())  # the job's own processes do not make its GPU foreign-busy
            elif key in poll.hidden_busy:
                view = replace(view, processes=(_HIDDEN,))
            if mps and not g.mig_mode_current:
                view = replace(view, mps=MpsDaemon(running=True))
            gpus.append(view)
        nodes.append(NodeSnapshot(ns.name, tuple(gpus), state=ns.state, resources=ns.resources, features=ns.features))
    return ClusterSnapshot(poll.snapshot.timestamp, tuple(nodes), poll.snapshot.source)


#: Pending reasons under which a job competes for resources now (others wait on time, holds or dependencies).
COMPETING = frozenset({"None", "Resources", "Priority"})


def queued(pending: Sequence[JobRecord]) -> list[JobRecord]:
    """The pending jobs the what-if queues: those competing for resources, with a request gputui can express."""
    return [r for r in pending if r.reason in COMPETING and r.request != UNEXPRESSED]


def scratch(
    poll: SlurmPoll, running: Sequence[JobRecord], pending: Sequence[JobRecord] = (),
    config: SchedulerConfig = SLURM_CONFIG,
) -> Scheduler:  # fmt: skip
    """A throw-away scheduler holding every running Slurm job on what Slurm gave it, with ``pending`` queued."""
    view = scheduling_view(poll, running)
    plain = [replace(r, request=replace(r.request, dependencies=())) for r in running if r.allocation is not None]
    said = [r for r in plain if r.request != UNEXPRESSED]
    waiting = [replace(r, request=replace(r.request, dependencies=())) for r in queued(pending)]
    built = build_scheduler(view, config, said, waiting)
    state = built.scheduler.state
    for rec in plain:
        beyond = rec.id in built.problems or rec.request == UNEXPRESSED  # gputui's options cannot say it
        if beyond and rec.allocation and ledger.can_apply(state, rec.allocation):
            ledger.apply(state, rec.allocation, rec.id)
    return built.scheduler


def predict(
    poll: SlurmPoll, running: Sequence[JobRecord], pending: Sequence[JobRecord], request: JobRequest, now: float,
    config: SchedulerConfig = SLURM_CONFIG,
) -> Preview:  # fmt: skip
    """Where gputui's scheduler would put ``request`` now, behind the jobs already waiting (a request's own
    ``priority`` places it among them); raises RequestError when it could never run here."""
    sched = scratch(poll, running, pending, config)
    job_id = max([*sched.jobs, *(r.id for r in (*running, *pending)), 0]) + 1
    job = sched.submit(replace(request, dependencies=()), now, job_id=job_id)
    ahead = sum(1 for r in queued(pending) if r.priority >= request.effective_priority)
    queue = f"; {ahead} job(s) ahead of it in Slurm's queue" if ahead else ""
    return preview_in(sched, request, job.id, now, queue)


def places(alloc: Allocation | None) -> frozenset[tuple[str, int]]:
    return frozenset((ng.node, g.index) for ng in alloc.nodes for g in ng.gpus) if alloc else frozenset()


def where(alloc: Allocation | None) -> str:
    """``node01:0,1 node02:3``: nodes and GPU indices only, the part both schedulers can be compared on."""
    if alloc is None:
        return "nowhere"
    return " ".join(f"{ng.node}:{','.join(str(g.index) for g in ng.gpus)}" for ng in alloc.nodes)


def comparison(predicted: Preview | None, actual: Allocation | None) -> str:
    """``predicted node01:0,1; Slurm placed node01:0,1 (same)`` or ``... (differs)``."""
    if predicted is None:
        return f"Slurm placed {where(actual)}"
    if predicted.allocation is None:
        return f"gputui predicted it would wait ({predicted.reason}); Slurm placed {where(actual)}"
    same = places(predicted.allocation) == places(actual)
    return f"predicted {where(predicted.allocation)}; Slurm placed {where(actual)} ({'same' if same else 'differs'})"
