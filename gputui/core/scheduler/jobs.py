"""A job as the queue tracks it: its request, its state, and why it waits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.job_states import CANCELLED, COMPLETED, ENDED, FAILED, PENDING, RUNNING
from gputui.core.scheduler.request import JobRequest

if TYPE_CHECKING:  # the placer (and through it the policies and the state) loads with the queue, not with a record
    from gputui.core.scheduler.place.placement import Ask

__all__ = ["CANCELLED", "COMPLETED", "ENDED", "FAILED", "PENDING", "REASONS", "RUNNING", "Job"]

#: Slurm's words for why a job waits.
REASONS = ("None", "Resources", "Priority", "Dependency", "DependencyNeverSatisfied", "ReqNodeNotAvail")


@dataclass(slots=True, eq=False)
class Job:
    """One job in the queue; ``limit_s`` is its time limit in effect (None: unlimited)."""

    id: int
    request: JobRequest
    ask: Ask
    submit_time: float
    seq: int
    limit_s: int | None
    state: str = PENDING
    reason: str = "None"
    start_time: float | None = None
    end_time: float | None = None
    allocation: Allocation | None = None
    reservation: tuple[float, Allocation] | None = None  # when and where it will start at the latest (as head)
    backfilled: bool = False
    blocked_by: int | None = None  # for reason Priority: the head job whose reservation it would delay
    shape: int = 0  # request.shape interned to a small number: the pass compares it for every pending job
    failed_stamp: int = -1  # release stamp when it last did not fit; while unchanged, it still does not fit
    blocked_on: tuple | None = None  # (release stamp, head reservation) when backfill last refused it
    end_reason: str | None = None  # why it ended, when not by itself (an MPS daemon restart)
    #: why it waits when it does not fit ("Resources", or "ReqNodeNotAvail" for a required node or device that is
    #: gone); "" until first asked. It depends only on ``ask`` and the state's lost GPUs, fixed until a refresh.
    fail_reason: str = ""

    @property
    def sort_key(self) -> tuple[int, int]:
        return (-self.request.effective_priority, self.seq)

    @property
    def expected_end(self) -> float | None:
        """When the job ends at the latest, by its time limit (None: unknown)."""
        if self.start_time is None or self.limit_s is None:
            return None
        return self.start_time + self.limit_s
