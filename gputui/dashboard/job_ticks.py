"""What the poll worker does with the job service after each poll, off the event loop.

A tick runs the scheduling pass (if this process owns the queue), draws simulated jobs into the snapshot,
and gives the job events since the last tick; the job list is read again only when a job changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, Event
from gputui.core.scheduler.job_states import ENDED, PENDING, RUNNING

if TYPE_CHECKING:  # the job service loads after the first frame; this module before it
    from gputui.jobs.backend import JobBackend
    from gputui.jobs.records import JobRecord

#: how many finished jobs the jobs view lists (the newest); pending and running ones are always all there
FINISHED_SHOWN = 200


@dataclass(frozen=True, slots=True)
class JobsTick:
    """One tick's outcome: ``records`` is None when no job changed since the last list."""

    snapshot: ClusterSnapshot  # with simulated jobs drawn in
    events: tuple[Event, ...]
    records: tuple[JobRecord, ...] | None
    now: float  # the queue's clock
    owner: bool
    error: str | None = None
    paused: bool = False  # a replay behind the queue's clock: no job moves until it gets there


def list_jobs(service: JobBackend) -> tuple[JobRecord, ...]:
    """Pending and running jobs, and the newest finished ones."""
    active = service.list(states=(PENDING, RUNNING))
    ended = service.list(states=ENDED, limit=FINISHED_SHOWN)
    return (*active, *ended)


def tick_jobs(service: JobBackend, snapshot: ClusterSnapshot, *, relist: bool = False) -> JobsTick:
    """Run one tick for ``snapshot``; store problems come back in ``error`` (one line), never raised."""
    result = service.tick(snapshot)
    error = result.error
    records = None
    try:
        if service.changed() or relist:
            records = list_jobs(service)
    except GputuiError as e:
        error = error or str(e)
    return JobsTick(result.snapshot, result.events, records, result.clock, result.owner, error, result.paused)
