"""A Slurm job explained in one line: Slurm's state and reason (in its word and in plain words), and gputui's
prediction beside what Slurm did ("predicted node01:0; Slurm placed node01:0 (same)")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.explain import Explanation
from gputui.core.scheduler.parse.timespec import format_duration
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.errors import JobError
from gputui.jobs.records import JobRecord
from gputui.jobs.views import Preview
from gputui.slurm.requests import UNEXPRESSED
from gputui.slurm.whatif import comparison

#: Slurm's pending reasons in plain words.
REASONS = {
    "Resources": "waiting for resources", "Priority": "jobs of higher priority are ahead of it",
    "Dependency": "waiting for its dependency", "DependencyNeverSatisfied": "its dependency can never be met",
    "JobHeldUser": "held by its owner (scontrol release)", "JobHeldAdmin": "held by an administrator",
    "BeginTime": "its begin time has not come", "ReqNodeNotAvail": "a node it needs is not available",
    "BadConstraints": "its request can never be met", "PartitionConfig": "the partition cannot run it",
}  # fmt: skip


def explanation(
    rec: JobRecord, said: Preview | Mapping[str, Any] | None, now: float, predict_now: Callable[[JobRequest], str]
) -> Explanation:
    """``said``: what gputui predicted at submit (None: not submitted through gputui); ``predict_now`` the
    what-if's line for a pending job's request now (it may raise RequestError or JobError)."""
    if rec.running:
        since = format_duration(int(max(0.0, now - (rec.start_time or now))))
        text = f"running on {rec.allocation_text or ', '.join(rec.allocation.node_names if rec.allocation else ())}"
        text += f" for {since}"
        if rec.stop_requested:
            text += f"; being stopped ({rec.stop_requested})"
        if said is not None:
            text += "; " + comparison(said, rec.allocation)
        return Explanation(rec.id, rec.state, "None", text)
    if rec.ended:
        code = "" if rec.exit_code is None else f", exit code {rec.exit_code}"
        text = f"{rec.end_reason or rec.state.lower()}{code}"
        if said is not None and rec.allocation is not None and rec.allocation.gpu_count:
            text += "; " + comparison(said, rec.allocation)
        return Explanation(rec.id, rec.state, "None", text)
    words = REASONS.get(rec.reason)
    text = f"Slurm: {rec.reason}" + (f" ({words})" if words else "")
    if said is not None:
        line = said.text if isinstance(said, Preview) else str(said.get("message") or said.get("outcome"))
        text += f"; gputui predicted at submit: {line}"
    elif rec.request != UNEXPRESSED:
        try:
            request = replace(rec.request, priority=rec.priority, nice=0)  # its place in Slurm's queue
            text += f"; gputui now: {predict_now(request)}"
        except (RequestError, JobError) as e:
            text += f"; gputui: {e}"
    return Explanation(rec.id, rec.state, rec.reason, text)
