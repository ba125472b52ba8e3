"""What the job service hands out besides job records: a tick's result, a preview, a job's detail."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from gputui.core.model import ClusterSnapshot, Event
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.records import JobRecord

TAIL_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class TickResult:
    """After one tick: the snapshot with simulated jobs drawn in, and the job events since the last tick."""

    snapshot: ClusterSnapshot
    events: tuple[Event, ...]
    clock: float  # the queue's clock: the source's time for simulated jobs, wall time for local ones
    owner: bool  # whether this process schedules the queue (else another gputui does)
    error: str | None = None  # a store problem met during the tick (locked, full disk); jobs are unharmed
    paused: bool = False  # the frame is older than the queue's clock: no job moved (see jobs.queue_clock)


@dataclass(frozen=True, slots=True)
class Preview:
    """Where a request would land now, or why it would wait; nothing is stored."""

    request: JobRequest
    starts_now: bool
    text: str  # one line
    reason: str | None = None  # Slurm's word when it would wait
    allocation: Allocation | None = None
    environment: dict[str, dict[str, str]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    reservation_time: float | None = None  # when it starts at the latest, if known


@dataclass(frozen=True, slots=True)
class JobDetail:
    """Everything a detail pane shows of one job."""

    record: JobRecord
    reason: str  # Slurm's word, or "None"
    explanation: str  # one line: why it waits, where it runs, how it ended
    stdout_tail: str = ""
    stderr_tail: str = ""


def tail(path: str | None, lines: int = 40, max_bytes: int = TAIL_BYTES) -> str:
    """The last ``lines`` lines of a log file (at most ``max_bytes``); empty when there is none."""
    if not path:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return ""
    text = data.decode(errors="replace")
    if size > max_bytes:
        text = text.split("\n", 1)[-1]  # drop the partial first line
    return "\n".join(text.splitlines()[-lines:])
