"""The one interface both runners offer: start a job, see whether it ended, stop it, show it in snapshots."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from gputui.core.model import ClusterSnapshot
from gputui.jobs.records import JobRecord


@dataclass(frozen=True, slots=True)
class Launch:
    """What starting a job gave, to be stored with it."""

    pid: int | None = None
    pid_start: int | None = None
    host: str | None = None
    job_dir: str | None = None
    stdout_path: str | None = None
    stderr_path: str | None = None


@dataclass(frozen=True, slots=True)
class Exit:
    """How a job ended: when (on the queue's clock), its exit code if known, and why in words if not plainly."""

    end_time: float
    exit_code: int | None
    note: str | None = None


class Runner(Protocol):
    kind: str  # "sim" | "local"
    grace_s: float  # how long a stopped job may take before it is killed

    def validate(self, rec: JobRecord) -> JobRecord:
        """Check (and complete) a job at submit time, e.g. resolve its command; raises JobError."""
        ...

    def planned_end(self, rec: JobRecord, now: float) -> float | None:
        """When a job started now ends by itself (simulated), or None (it ends when its process does)."""
        ...

    def start(self, rec: JobRecord, env: dict[str, str]) -> Launch:
        """Start ``rec`` (already stored as running) with ``env`` for its node; raises OSError if it cannot."""
        ...

    def check(self, rec: JobRecord, now: float) -> Exit | None:
        """None while the job runs; how it ended once it has."""
        ...

    def stop(self, rec: JobRecord, force: bool) -> bool:
        """Ask a running job to stop (``force``: kill it). True when it has stopped at once."""
        ...

    def own_pids(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord]) -> Collection[tuple[str, int]]:
        """(node, pid) of the processes in ``snapshot`` that belong to our running jobs."""
        ...

    def overlay(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord], now: float) -> ClusterSnapshot:
        """``snapshot`` with our running jobs shown on their GPUs (simulated jobs only)."""
        ...
