"""The head job's reservation for EASY backfill: when (and where) it starts at the latest if running jobs end
by their time limits. Computed by releasing running jobs in end order on the live state, then putting them back."""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from gputui.core.scheduler import ledger
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.jobs import RUNNING, Job
from gputui.core.scheduler.place.finder import find_allocation
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.state import ClusterState


def reserve(state: ClusterState, head: Job, running: Iterable[Job], now: float,
            policy: Policy, ordered: list[tuple[float, int, int, Job]] | None = None,
            ) -> tuple[float, Allocation] | None:  # fmt: skip
    """(start time, allocation) for ``head``, or None if it can never start by the running jobs' limits.

    ``running`` may be narrowed by the caller to the jobs on the only nodes the head can use.
    """
    # running jobs by (end, seq), ties in the order given: a heap, as the head usually fits after the first few
    # ``ordered``: the queue's own heap of them (a copy, as this pops it), where jobs that ended are still in
    ends: list[tuple[float, int, int, Job]] = []
    if ordered is not None:
        ends = ordered
    else:
        for j in running:  # Job.expected_end, without the call
            if j.limit_s is not None and j.start_time is not None and j.allocation is not None:
                ends.append((j.start_time + j.limit_s, j.seq, len(ends), j))
        heapq.heapify(ends)
    previous = head.reservation[1] if head.reservation else None
    released: list[Job] = []
    result = None
    try:
        while ends:
            while ends and ends[0][3].state != RUNNING:
                heapq.heappop(ends)  # ended since it started
            if not ends:
                break
            t = ends[0][0]
            while ends and ends[0][0] == t:
                job = heapq.heappop(ends)[3]
                if job.state != RUNNING:
                    continue
                assert job.allocation is not None
                ledger.release(state, job.allocation, job.id, count=False)
                released.append(job)
            alloc = find_allocation(state, head.ask, policy)
            if alloc is None and previous is not None and ledger.can_apply(state, previous):
                alloc = previous  # the placer may be greedy; the old reservation still holds, so keep it
            if alloc is not None:
                result = (max(t, now), alloc)
                break
    finally:
        for job in reversed(released):
            assert job.allocation is not None
            ledger.apply(state, job.allocation, job.id)
    return result
