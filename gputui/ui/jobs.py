"""What the dashboard needs from a job queue: rows to list, and which GPUs each running job holds.

The queue itself lives elsewhere (``gputui submit`` and the scheduler); it plugs in by passing an
object with a ``jobs()`` method to ``create_app(..., jobs=...)``. The app calls it from its
polling thread, never from the UI thread, so it may read a database or a file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

#: States listed first, in this order; any other state string is shown as it is, after them.
STATE_ORDER = ("running", "pending", "queued", "held", "completed", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class JobSummary:
    """One job as the jobs view lists it; None is N/A."""

    job_id: str
    state: str  # 'pending', 'running', 'completed', 'failed', 'cancelled', ... shown as given
    user: str | None = None
    name: str | None = None
    request: str | None = None  # what it asked for, as the user wrote it: 'gpu:a100:2', 'mig 1g.10gb'
    node: str | None = None  # where it runs
    gpus: tuple[int, ...] = ()  # the GPU indices it holds on ``node``
    submitted: float | None = None  # epoch seconds
    started: float | None = None
    reason: str | None = None  # why it waits, or how it ended


@runtime_checkable
class JobsProvider(Protocol):
    """Anything that can list the queue's jobs; called from the polling thread about once a poll."""

    def jobs(self) -> list[JobSummary]: ...


def jobs_by_gpu(rows: Iterable[JobSummary]) -> dict[str, str]:
    """'node/index' -> 'job ID' for every GPU a running job holds (the holder column and the filter use it)."""
    out: dict[str, str] = {}
    for job in rows:
        if job.state != "running" or job.node is None:
            continue
        for index in job.gpus:
            key = f"{job.node}/{index}"
            label = f"job {job.job_id}" + (f" {job.name}" if job.name else "")
            out[key] = label if key not in out else f"{out[key]}, {label}"
    return out


def state_rank(state: str) -> int:
    return STATE_ORDER.index(state) if state in STATE_ORDER else len(STATE_ORDER)
