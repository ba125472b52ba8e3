"""The events a Slurm job's change of state gives, as the dashboard's event log shows them."""

from __future__ import annotations

from gputui.core.model import Event
from gputui.jobs.keeper import job_event
from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, JobRecord
from gputui.slurm.whatif import where

_END_KINDS = {COMPLETED: "job_ended", FAILED: "job_failed", CANCELLED: "job_cancelled"}


def _end(rec: JobRecord, t: float) -> Event:
    code = "" if rec.exit_code is None else f", exit code {rec.exit_code}"
    return job_event(_END_KINDS.get(rec.state, "job_ended"), rec, t, f"job {rec.id} {rec.end_reason or 'ended'}{code}")


def transition(old: JobRecord | None, new: JobRecord, t: float, prediction: str | None = None) -> list[Event]:
    """Events for ``new`` given what the last poll said (``old``; None for a job first seen now).

    A job seen for the first time already pending was submitted; one first seen running or ended had its earlier
    steps between two polls. ``prediction`` (gputui's, beside Slurm's placement) is added to a start.
    """
    out: list[Event] = []
    before = old.state if old is not None else None
    if before == new.state:
        return out
    if before is None and new.state == PENDING:
        out.append(job_event("job_submitted", new, t, f"job {new.id} submitted by {new.user} ({new.options})"))
    if new.state == RUNNING and before != RUNNING:
        text = f"job {new.id} started on {where(new.allocation)}" + (f"; {prediction}" if prediction else "")
        out.append(job_event("job_started", new, t, text))
    elif new.state == PENDING and before == RUNNING:
        out.append(job_event("note", new, t, f"job {new.id} requeued ({new.reason})"))
    elif new.ended and (before is None or before in (PENDING, RUNNING)):
        out.append(_end(new, t))
    return out
