"""Simulated execution on a source's clock: a job runs for its time limit and then ends by itself. A job without
--time gets the queue's default limit, which for a simulated queue is ``DEFAULT_DURATION_S`` (see job_session).

Nothing is executed. While a job runs, :meth:`SimRunner.overlay` draws it into the snapshots.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler.parse.timespec import UNLIMITED
from gputui.jobs.overlay import overlay, overlay_pids
from gputui.jobs.records import JobRecord
from gputui.jobs.runners.base import Exit, Launch

DEFAULT_DURATION_S = 300


class SimRunner:
    """Jobs that pretend to run; ``default_duration_s`` is how long a job without --time runs."""

    kind = "sim"
    grace_s = 0.0

    def __init__(self, default_duration_s: int = DEFAULT_DURATION_S) -> None:
        self.default_duration_s = default_duration_s

    def validate(self, rec: JobRecord) -> JobRecord:
        return rec  # nothing runs, so any command will do

    def duration(self, rec: JobRecord) -> float | None:
        limit = rec.request.time_limit_s
        if limit == UNLIMITED:
            return None
        return float(self.default_duration_s if limit is None else limit)

    def planned_end(self, rec: JobRecord, now: float) -> float | None:
        d = self.duration(rec)
        return None if d is None else now + d

    def start(self, rec: JobRecord, env: dict[str, str]) -> Launch:
        return Launch()

    def check(self, rec: JobRecord, now: float) -> Exit | None:
        if rec.sim_end is not None and rec.sim_end <= now:
            return Exit(rec.sim_end, 0)
        return None

    def stop(self, rec: JobRecord, force: bool) -> bool:
        return True

    def own_pids(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord]) -> Collection[tuple[str, int]]:
        return overlay_pids(running)

    def overlay(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord], now: float) -> ClusterSnapshot:
        return overlay(snapshot, running, now)
