"""A preview from a throw-away scheduler: where a job just submitted to it would start now, or why it waits."""

from __future__ import annotations

from gputui.core.scheduler.explain import explain
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.describe import allocation_text
from gputui.jobs.views import Preview


def preview_in(sched: Scheduler, request: JobRequest, job_id: int, now: float, note: str = "") -> Preview:
    """Run ``sched``'s pass at ``now`` for its job ``job_id`` (submitted for ``request``); ``note`` ends the line."""
    decision = next((d for d in sched.schedule(now) if d.job_id == job_id), None)
    if decision is not None:
        alloc = decision.allocation
        return Preview(request, True, f"would start now on {allocation_text(alloc)}{note}", None, alloc,
                       decision.environment(), decision.warnings)  # fmt: skip
    why = explain(sched, job_id, now)
    return Preview(request, False, f"would wait ({why.reason}): {why.text}{note}", why.reason,
                   reservation_time=why.reservation_time)  # fmt: skip
