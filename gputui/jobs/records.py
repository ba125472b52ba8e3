"""A job as the store keeps it, and the user who asks for things; plain frozen data."""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass, field

from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.jobs import CANCELLED, COMPLETED, ENDED, FAILED, PENDING, RUNNING
from gputui.core.scheduler.request import JobRequest
from gputui.jobs import describe

__all__ = ["CANCELLED", "COMPLETED", "ENDED", "FAILED", "PENDING", "RUNNING", "JobRecord", "User", "current_user"]

#: What a stop request is for: cancel, put back in the queue, or the time limit ran out.
STOP_KINDS = ("cancel", "requeue", "timeout", "lost")


@dataclass(frozen=True, slots=True)
class User:
    """Who submits or cancels: the login name and the numeric uid (the uid decides ownership)."""

    name: str
    uid: int


def current_user() -> User:
    uid = os.getuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    return User(name, uid)


@dataclass(frozen=True, slots=True)
class JobRecord:
    """One job row. Times are on the queue's clock: the source's (simulated) or the wall clock (local)."""

    id: int
    cluster: str
    user: str
    uid: int
    options: str  # the Slurm option text as given
    request: JobRequest
    runner: str  # "local" | "sim"
    state: str
    submit_time: float
    name: str | None = None
    command: tuple[str, ...] = ()  # argv; for a batch script, the script's arguments
    script: str | None = None  # the batch script's text, captured at submit as sbatch does
    script_path: str | None = None
    cwd: str | None = None
    priority: int = 0
    reason: str = "None"
    end_reason: str | None = None
    allocation: Allocation | None = None
    environment: dict[str, dict[str, str]] = field(default_factory=dict)  # per node
    start_time: float | None = None
    end_time: float | None = None
    time_limit_s: int | None = None  # the limit in effect; None: unlimited
    exit_code: int | None = None
    pid: int | None = None  # the job's wrapper (its process group leader), local jobs
    pid_start: int | None = None  # its start time in clock ticks since boot, against pid reuse
    host: str | None = None
    job_dir: str | None = None
    stdout_path: str | None = None
    stderr_path: str | None = None
    sim_end: float | None = None  # simulated jobs: when they end by themselves
    stop_requested: str | None = None  # one of STOP_KINDS while being stopped
    stop_time: float | None = None  # wall time the first signal was sent

    # -- views --------------------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        return self.state == PENDING

    @property
    def running(self) -> bool:
        return self.state == RUNNING

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    @property
    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.script_path:
            return os.path.basename(self.script_path)
        return os.path.basename(self.command[0]) if self.command else "job"

    @property
    def state_code(self) -> str:
        return describe.STATE_CODES.get(self.state, self.state[:2])

    @property
    def granularity(self) -> str:
        return describe.granularity(self.request)

    @property
    def allocation_text(self) -> str:
        return describe.allocation_text(self.allocation)

    @property
    def nodelist(self) -> str:
        return describe.nodelist(self.allocation)

    @property
    def node_count(self) -> int:
        if self.allocation is not None:
            return len(self.allocation.nodes)
        return self.request.node_count or 1

    @property
    def command_text(self) -> str:
        argv = ([self.script_path] if self.script_path else []) + list(self.command)
        return " ".join(argv)

    def elapsed(self, now: float) -> float:
        """Seconds run so far (running), in all (ended), or 0 (never started)."""
        if self.start_time is None:
            return 0.0
        end = self.end_time if self.end_time is not None else now
        return max(0.0, end - self.start_time)


def final_state(stop: str | None, exit_code: int | None) -> str:
    """The state a job ends in, from why it was stopped (if it was) and its exit code."""
    if stop == "cancel":
        return CANCELLED
    if stop in ("timeout", "lost"):
        return FAILED
    return COMPLETED if exit_code == 0 else FAILED
