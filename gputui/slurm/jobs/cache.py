"""Slurm's job list between full reads: only the jobs that changed are asked for again.

Slurm keeps ended jobs for MinJobAge (300 s by default), and ``squeue --json`` prints every one of them on every
poll: with 1,000 such jobs that one command costs most of a poll. A job that has ended does not change any more,
so once a full read has given them, each later poll asks only ``squeue -h -o "%i|%T|%r|%Q|%y"`` (the live jobs'
id, state, reason, priority and nice: one short line each) and reads in full (``scontrol show job -d ID``) just
the jobs whose line is new or changed, and those that left the live list (to see how they ended). A full read
comes back every ``full_every_s`` seconds (jobs that began and ended between two polls, jobs Slurm forgot), when
too many jobs changed at once, and whenever the short listing fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gputui.slurm.commands import SlurmClient
from gputui.slurm.formats.job_info import SlurmJob, jobs_from_text

LIVE = ("squeue", "-h", "-o", "%i|%T|%r|%Q|%y")
#: Job states squeue lists by default (the job is not over).
LIVE_STATES = frozenset({
    "PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "RESIZING", "SIGNALING", "STOPPED", "REQUEUED",
    "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SPECIAL_EXIT",
})  # fmt: skip


def _line_key(job: SlurmJob) -> tuple[str, str, int | None, int]:
    return (job.state, job.reason, job.priority, job.nice)


def parse_live(text: str) -> dict[int, tuple[str, str, int | None, int]] | None:
    """id -> (state, reason, priority, nice) from the short listing; None when a line is not understood (an
    array or heterogeneous job id such as ``12_3``: those are read in full)."""
    out: dict[int, tuple[str, str, int | None, int]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.strip().split("|")
        if len(parts) != 5 or not parts[0].isdigit():
            return None
        prio = int(parts[3]) if parts[3].isdigit() else None
        nice = int(parts[4]) if parts[4].lstrip("-").isdigit() else 0
        out[int(parts[0])] = (parts[1].upper(), parts[2] or "None", prio, nice)
    return out


class JobCache:
    """The jobs of the last read, brought up to date by :meth:`read`. ``from_jobs``: the smallest job list worth
    the short listing (below it every read is full, as cheap and simpler)."""

    def __init__(
        self, client: SlurmClient, *, from_jobs: int = 200, full_every_s: float = 60.0, max_changed: int = 16,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        self.client = client
        self.from_jobs = from_jobs
        self.full_every_s = full_every_s
        self.max_changed = max_changed
        self.clock = clock
        self._jobs: dict[int, SlurmJob] | None = None
        self._full_at = 0.0
        self.full_reads = 0  # for tests and the benchmark
        self.short_reads = 0

    def read(self, full: Callable[[], tuple[SlurmJob, ...]]) -> tuple[SlurmJob, ...]:
        """The current jobs: from ``full()`` (a full read) or from the short listing and the changed jobs."""
        now = self.clock()
        jobs = self._jobs
        if jobs is not None and len(jobs) >= self.from_jobs and now - self._full_at < self.full_every_s:
            got = self._update(jobs)
            if got is not None:
                self.short_reads += 1
                self._jobs = got
                return tuple(got.values())
        listed = full()
        self.full_reads += 1
        self._jobs = {j.id: j for j in listed}
        self._full_at = now
        return listed

    def _update(self, jobs: dict[int, SlurmJob]) -> dict[int, SlurmJob] | None:
        done = self.client.run(LIVE)
        live = parse_live(done.stdout) if done.returncode == 0 else None
        if live is None:
            return None
        changed = [i for i, key in live.items() if i not in jobs or _line_key(jobs[i]) != key]
        gone = [i for i, j in jobs.items() if j.state in LIVE_STATES and i not in live]
        if len(changed) + len(gone) > self.max_changed:
            return None
        out = dict(jobs)
        for job_id in changed + gone:
            shown = self.client.run(("scontrol", "show", "job", "-d", str(job_id)))
            if shown.returncode != 0:
                if job_id in live:
                    return None  # listed but not shown: read everything again
                out.pop(job_id, None)  # Slurm forgot it: the job back end notes that it left the queue
                continue
            for job in jobs_from_text(shown.stdout):
                out[job.id] = job
        return dict(sorted(out.items()))
