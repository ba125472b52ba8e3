"""What-if: the embedded scheduler on the cluster as Slurm reported it, predicting what Slurm will do with a
request (start it where, leave it pending why, or refuse it), and the prediction set beside Slurm's real placement.

The scheduler runs the ``slurm`` placement policy (Slurm 22.05 select/cons_tres as measured, see
docs/slurm-fidelity.md) on a view of the cluster in Slurm's terms (:mod:`gputui.slurm.settings`): nodes in Slurm's
order (Weight, then slurm.conf), MIG-typed GRES as GPUs of that type, MPS offered wherever a node has ``mps`` GRES
(a GPU's shares sum to at most its count), GPUs of nodes Slurm would not use (down, drained) as lost, and every
running Slurm job holding what Slurm gave it. Jobs waiting in Slurm's queue for resources or priority are queued
ahead of the request, in Slurm's priority order; jobs held, waiting on a dependency or a begin time are left out.
Before placement come Slurm's own gates: a request no node could ever hold is refused as sbatch refuses it, and
``--hold``, ``--begin`` and ``--dependency`` pend with Slurm's reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsDaemon, NodeResources, NodeSnapshot, ProcessInfo
from gputui.core.scheduler import ledger
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.timespec import begin_time
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.preview import preview_in
from gputui.jobs.records import COMPLETED, JobRecord
from gputui.jobs.restore import build_scheduler
from gputui.jobs.views import Preview
from gputui.slurm.jobs.outcome import allocation_map, outcome_of
from gputui.slurm.requests import UNEXPRESSED
from gputui.slurm.settings import SlurmSettings, plain_allocation
from gputui.slurm.source import SlurmPoll

#: Slurm counts MPS shares as a consumable (two mps:60 jobs do not fit on one GPU), with the slurm policy.
SLURM_CONFIG = SlurmSettings().scheduler_config()
#: sbatch's words for a request that no node of the cluster could ever hold.
NOT_AVAILABLE = "Requested node configuration is not available"
_HIDDEN = ProcessInfo(pid=0, type="C", command="a Slurm job this user cannot see")


def scheduling_view(poll: SlurmPoll, running: Sequence[JobRecord], idle: bool = False) -> ClusterSnapshot:
    """The snapshot as the embedded scheduler should judge it (see the module's docstring); ``idle``: as if no
    job ran and every node were up (what sbatch checks a request against)."""
    held = {(ng.node, g.index) for r in running if r.allocation for ng in r.allocation.nodes for g in ng.gpus}
    by_name = {n.name: n for n in poll.nodes}
    nodes = []
    for ns in poll.snapshot.nodes:
        sn = by_name.get(ns.name)
        mps = sn is not None and any(i.name == "mps" and i.count for i in sn.gres)
        down = sn is not None and not sn.available and not idle
        gpus = []
        for g in ns.gpus:
            key = (ns.name, g.index)
            gtype = poll.gpu_types.get(key)
            # a MIG-typed GRES is a GPU of that type to Slurm: untyped requests take it too
            view: GpuSnapshot = replace(g, name=gtype or g.name, lost=(g.lost and not idle) or down,
                                        mig_mode_current=False, gpu_instances=())  # fmt: skip
            if key in held or idle:
                view = replace(view, processes=())  # the job's own processes do not make its GPU foreign-busy
            elif key in poll.hidden_busy:
                view = replace(view, processes=(_HIDDEN,))
            if mps:
                view = replace(view, mps=MpsDaemon(running=True))
            gpus.append(view)
        res = ns.resources
        if idle and res is not None:
            res = NodeResources(res.cpus, res.memory_mib, 0, 0)
        nodes.append(NodeSnapshot(ns.name, tuple(gpus), state=ns.state, resources=res, features=ns.features))
    weights = {n.name: n.weight or 0 for n in poll.nodes}
    nodes.sort(key=lambda n: weights.get(n.name, 0))  # stable: slurm.conf order inside one weight
    return ClusterSnapshot(poll.snapshot.timestamp, tuple(nodes), poll.snapshot.source)


#: Pending reasons under which a job competes for resources now (others wait on time, holds or dependencies).
COMPETING = frozenset({"None", "Resources", "Priority"})


def queued(pending: Sequence[JobRecord]) -> list[JobRecord]:
    """The pending jobs the what-if queues: those competing for resources, with a request gputui can express."""
    return [r for r in pending if r.reason in COMPETING and r.request != UNEXPRESSED]


def _in_slurm_terms(rec: JobRecord, settings: SlurmSettings) -> JobRecord:
    if rec.request == UNEXPRESSED:
        return replace(rec, allocation=plain_allocation(rec.allocation))
    request = replace(settings.request(rec.request), dependencies=())
    return replace(rec, request=request, allocation=plain_allocation(rec.allocation))


def scratch(
    poll: SlurmPoll, running: Sequence[JobRecord], pending: Sequence[JobRecord] = (),
    config: SchedulerConfig = SLURM_CONFIG, settings: SlurmSettings | None = None,
) -> Scheduler:  # fmt: skip
    """A throw-away scheduler holding every running Slurm job on what Slurm gave it, with ``pending`` queued."""
    settings = settings or SlurmSettings.read(None, poll.nodes)
    view = scheduling_view(poll, running)
    plain = [_in_slurm_terms(r, settings) for r in running if r.allocation is not None]
    said = [r for r in plain if r.request != UNEXPRESSED]
    waiting = [_in_slurm_terms(r, settings) for r in queued(pending)]
    built = build_scheduler(view, config, said, waiting)
    state = built.scheduler.state
    for rec in plain:
        beyond = rec.id in built.problems or rec.request == UNEXPRESSED  # gputui's options cannot say it
        if beyond and rec.allocation and ledger.can_apply(state, rec.allocation):
            ledger.apply(state, rec.allocation, rec.id)
    return built.scheduler


def accepts(poll: SlurmPoll, request: JobRequest, config: SchedulerConfig, settings: SlurmSettings) -> None:
    """Raise RequestError, in sbatch's words, when no node could ever hold ``request`` (as sbatch refuses it)."""
    req = settings.request(request, keep_memory=True)
    if req.kind == "mps" and (req.mps_percent or 0) > 100 and request.mps_percent is not None:
        if request.mps_percent > max(settings.mps_totals.values(), default=0):
            raise RequestError(NOT_AVAILABLE)
        req = replace(req, mps_percent=100)  # Slurm checks the node's whole MPS count at submit, not one GPU's
    built = build_scheduler(scheduling_view(poll, (), idle=True), config, (), ())
    try:
        job = built.scheduler.submit(replace(req, dependencies=(), held=False, begin=None, priority=0), 0.0)
    except RequestError as e:
        raise RequestError(f"{NOT_AVAILABLE} ({e})") from None
    if not any(d.job_id == job.id for d in built.scheduler.schedule(0.0)):
        raise RequestError(NOT_AVAILABLE)


def gate(request: JobRecord | JobRequest, records: Sequence[JobRecord], now: float) -> str | None:
    """Slurm's pending reason before any placement (held, begin time, dependency), or None; RequestError for a
    dependency on a job Slurm does not know."""
    req = request.request if isinstance(request, JobRecord) else request
    if req.held:
        return "JobHeldUser"
    if req.begin is not None and begin_time(req.begin, now) > now:
        return "BeginTime"
    by_id = {r.id: r for r in records}
    waiting = False
    for kind, dep in req.dependencies:
        rec = by_id.get(dep)
        if rec is None:
            raise RequestError("Job dependency problem")
        ok = rec.state == COMPLETED and not rec.exit_code
        if kind == "after":
            waiting |= rec.pending
        elif not rec.ended:
            waiting = True
        elif (kind == "afterok" and not ok) or (kind == "afternotok" and ok):
            return "DependencyNeverSatisfied"
    return "Dependency" if waiting else None


def predict(
    poll: SlurmPoll, running: Sequence[JobRecord], pending: Sequence[JobRecord], request: JobRequest, now: float,
    config: SchedulerConfig = SLURM_CONFIG, settings: SlurmSettings | None = None,
    ended: Sequence[JobRecord] = (),
) -> Preview:  # fmt: skip
    """What Slurm would do with ``request`` now, behind the jobs already waiting (a request's own ``priority``
    places it among them); raises RequestError (in sbatch's words) where sbatch would refuse it."""
    settings = settings or SlurmSettings.read(None, poll.nodes)
    accepts(poll, request, config, settings)
    why = gate(request, [*running, *pending, *ended], now)
    if why is not None:
        return Preview(request, False, f"would wait ({why}): Slurm holds it until then", why)
    if (settings.request(request).mps_percent or 0) > 100:
        return Preview(request, False, "would wait (Resources): no single GPU has that many MPS shares, so Slurm "
                       "keeps it pending for good", "Resources")  # fmt: skip
    sched = scratch(poll, running, pending, config, settings)
    job_id = max([*sched.jobs, *(r.id for r in (*running, *pending)), 0]) + 1
    job = sched.submit(replace(settings.request(request), dependencies=()), now, job_id=job_id)
    ahead = sum(1 for r in queued(pending) if r.priority >= request.effective_priority)
    queue = f"; {ahead} job(s) ahead of it in Slurm's queue" if ahead else ""
    return replace(preview_in(sched, request, job.id, now, queue), request=request)


def places(alloc: Allocation | None) -> frozenset[tuple[str, int]]:
    return frozenset((ng.node, g.index) for ng in alloc.nodes for g in ng.gpus) if alloc else frozenset()


def where(alloc: Allocation | None) -> str:
    """``node01:0,1 node02:3``: nodes and GPU indices only, the part both schedulers can be compared on."""
    if alloc is None:
        return "nowhere"
    return where_map(allocation_map(alloc))


def where_map(allocation: Mapping[str, Sequence[int]]) -> str:
    """:func:`where` of an answer's ``allocation`` (node -> IDX)."""
    return " ".join(f"{node}:{','.join(str(i) for i in idx) or 'CPUs'}" for node, idx in allocation.items())


def comparison(predicted: Preview | Mapping[str, Any] | None, actual: Allocation | None) -> str:
    """``predicted node01:0,1; Slurm placed node01:0,1 (same)`` or ``... (differs)``; ``predicted`` is a preview
    or a kept answer (:func:`~gputui.slurm.jobs.outcome.outcome_of`)."""
    if predicted is None:
        return f"Slurm placed {where(actual)}"
    answer = outcome_of(predicted) if isinstance(predicted, Preview) else predicted
    if answer.get("outcome") == "start":
        said = {str(k): [int(i) for i in v] for k, v in dict(answer.get("allocation") or {}).items()}
        same = said == allocation_map(actual)
        return f"predicted {where_map(said)}; Slurm placed {where(actual)} ({'same' if same else 'differs'})"
    if answer.get("outcome") == "wait":
        return f"gputui predicted it would wait ({answer.get('reason')}); Slurm placed {where(actual)}"
    return f"gputui predicted sbatch would refuse it; Slurm placed {where(actual)}"
