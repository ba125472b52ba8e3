"""The job-action interface the dashboard drives: the embedded scheduler's JobService and the Slurm adapter
both offer it, so the dashboard does not know which one it talks to."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gputui.core.model import ClusterSnapshot
from gputui.jobs.records import JobRecord, User
from gputui.jobs.views import JobDetail, Preview, TickResult

if TYPE_CHECKING:  # the scheduler loads with the first job (jobs/keeper.py)
    from gputui.core.scheduler.explain import Explanation


@runtime_checkable
class JobBackend(Protocol):
    """Submit, preview, cancel, list and explain the jobs of one cluster; ``tick`` once per poll.

    Every method that fails for a user's reason raises a GputuiError subclass carrying one line
    (RequestError for a malformed request, JobNotFound, JobRefused, StoreError, or the back end's own).
    """

    cluster: str  # the queue's name: a recording's path, "live:<host>", "slurm:<cluster>"
    kind: str  # "embedded" (gputui's own scheduler) or "slurm"

    @property
    def owner(self) -> bool:
        """Whether this process runs the scheduling passes (always False for Slurm: slurmctld does)."""
        ...

    def tick(self, snapshot: ClusterSnapshot, now: float | None = None) -> TickResult: ...

    def changed(self) -> bool: ...

    def now(self) -> float: ...

    def submit(
        self,
        options: str | Sequence[str] = "",
        command: Sequence[str] = (),
        *,
        script: str | os.PathLike[str] | None = None,
        user: User | None = None,
        cwd: str | None = None,
    ) -> JobRecord: ...

    def preview(self, options: str | Sequence[str], script: str | os.PathLike[str] | None = None) -> Preview: ...

    def explain(self, job_id: int) -> Explanation: ...

    def cancel(self, job_id: int, user: User | None = None) -> JobRecord: ...

    def requeue(self, job_id: int, user: User | None = None) -> JobRecord: ...

    def set_priority(self, job_id: int, priority: int, user: User | None = None) -> JobRecord: ...

    def list(
        self, states: Iterable[str] | None = None, user: str | None = None, limit: int | None = None
    ) -> list[JobRecord]: ...

    def get(self, job_id: int) -> JobDetail: ...

    def close(self) -> None: ...
