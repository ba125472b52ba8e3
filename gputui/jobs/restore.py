"""A scheduler rebuilt from the store: running jobs put back on their allocations, pending jobs queued again.

The store is the truth; the in-memory :class:`Scheduler` is rebuilt from it whenever another process changed
the store, and for previews and explanations.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.jobs import ENDED, FAILED, Job
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.records import JobRecord

if TYPE_CHECKING:  # the scheduler itself loads with the first job a queue holds (build_scheduler), not before
    from gputui.core.scheduler.queue import Scheduler


@dataclass
class Built:
    scheduler: Scheduler
    problems: dict[int, str] = field(default_factory=dict)  # job -> why it cannot go back in (it failed)


def request_of(rec: JobRecord) -> JobRequest:
    """The request with the job's current priority (which may have been changed after submit)."""
    if rec.priority != rec.request.priority:
        return replace(rec.request, priority=rec.priority)
    return rec.request


def dependency_ids(records: Iterable[JobRecord]) -> set[int]:
    return {dep for rec in records for _kind, dep in rec.request.dependencies}


def held_pids(snapshot: ClusterSnapshot, running: Iterable[JobRecord]) -> set[tuple[str, int]]:
    """(node, pid) of every process on a whole GPU or MIG instance that a running job holds.

    They do not make that GPU "busy": it is the job's, whoever else appears on it (a recording's own workload,
    someone running outside the queue), and that is no reason to fail the job.
    """
    whole: set[tuple[str, int]] = set()
    mig: set[tuple[str, int, int]] = set()
    for rec in running:
        if rec.allocation is None:
            continue
        for ng in rec.allocation.nodes:
            for g in ng.gpus:
                if g.mig is not None:
                    mig.add((ng.node, g.index, g.mig.gi_id))
                elif g.mps_percent is None:
                    whole.add((ng.node, g.index))
    out: set[tuple[str, int]] = set()
    if not whole and not mig:
        return out
    for node in snapshot.nodes:
        for gs in node.gpus:
            on_whole = (node.name, gs.index) in whole
            for p in gs.processes:
                if on_whole or (p.gi_id is not None and (node.name, gs.index, p.gi_id) in mig):
                    out.add((node.name, p.pid))
    return out


def _stub(sched: Scheduler, rec: JobRecord, state: str) -> None:
    """An ended job, known to the scheduler only so that dependencies on it can be judged."""
    from gputui.core.scheduler.place.placement import prepare

    job = Job(rec.id, rec.request, prepare(sched.state, rec.request), rec.submit_time, 0, None, state=state)
    job.end_time = rec.end_time
    sched.jobs[rec.id] = job


def build_scheduler(
    snapshot: ClusterSnapshot,
    config: SchedulerConfig,
    running: Iterable[JobRecord],
    pending: Iterable[JobRecord],
    ended: Iterable[JobRecord] = (),
    own_pids: Collection[tuple[str, int]] = (),
) -> Built:
    """A scheduler on ``snapshot`` holding ``running`` (on their allocations) and ``pending`` (queued in submit
    order); ``ended`` are the finished jobs that dependencies refer to."""
    from gputui.core.scheduler import ledger
    from gputui.core.scheduler.build import state_from_snapshot
    from gputui.core.scheduler.queue import Scheduler

    sched = Scheduler(state_from_snapshot(snapshot, config, own_pids))
    built = Built(sched)
    for rec in ended:
        _stub(sched, rec, rec.state if rec.state in ENDED else FAILED)
    for rec in sorted(running, key=lambda r: (r.start_time or 0.0, r.id)):
        alloc = rec.allocation
        try:
            job = sched.submit(request_of(rec), rec.submit_time, job_id=rec.id)
        except RequestError as e:
            built.problems[rec.id] = f"no longer fits this cluster ({e})"
            _stub(sched, rec, FAILED)
            continue
        if alloc is None or not ledger.can_apply(sched.state, alloc):
            sched.pending.remove(job)
            built.problems[rec.id] = "its GPUs are gone (lost, or the MIG instance was destroyed)"
            job.state, job.end_time = FAILED, snapshot.timestamp
            continue
        sched.adopt(job, alloc, rec.start_time if rec.start_time is not None else rec.submit_time)
    for rec in sorted(pending, key=lambda r: r.id):
        try:
            sched.submit(request_of(rec), rec.submit_time, job_id=rec.id)
        except RequestError as e:
            built.problems[rec.id] = f"can never run on this cluster ({e})"
            _stub(sched, rec, FAILED)
    return built
