"""Reading the job queue's records for the dashboard: who holds which GPU, labels, priorities."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gputui.core.plain_text import sanitise
from gputui.dashboard.outcomes import Pieces

if TYPE_CHECKING:  # the job service loads after the first frame; this module before it
    from gputui.jobs.records import JobRecord

MAX_PRIORITY = 2**32


def jobs_on_gpu(records: Sequence[JobRecord], node: str, index: int) -> list[JobRecord]:
    """Running jobs holding GPU ``index`` of ``node`` (whole, a MIG instance of it or an MPS share), by id."""
    out = [
        r
        for r in records
        if r.running
        and r.allocation is not None
        and any(ng.node == node and any(g.index == index for g in ng.gpus) for ng in r.allocation.nodes)
    ]
    return sorted(out, key=lambda r: r.id)


def holders_by_gpu(records: Sequence[JobRecord]) -> dict[str, str]:
    """'node/index' -> 'job 42 train' for every GPU a running job holds (the overview's holder column and the
    filter use it); a MIG instance or an MPS share is named after the job, and jobs sharing a GPU are joined."""
    out: dict[str, list[str]] = {}
    for rec in sorted(records, key=lambda r: r.id):
        if not rec.running or rec.allocation is None:
            continue
        base = f"job {rec.id}" + (f" {sanitise(rec.name)}" if rec.name else "")  # drawn in the overview
        for ng in rec.allocation.nodes:
            for g in ng.gpus:
                share = f" ({g.mig.profile})" if g.mig is not None else ""
                share = f" (MPS {g.mps_percent}%)" if g.mps_percent is not None else share
                out.setdefault(f"{sanitise(ng.node)}/{g.index}", []).append(base + share)  # as the state's keys
    return {key: ", ".join(labels) for key, labels in out.items()}


def check_priority(text: str) -> str | None:
    text = text.strip()
    if not text.isdigit():
        return "a whole number from 0 (lowest) up"
    return None if int(text) <= MAX_PRIORITY else f"at most {MAX_PRIORITY}"


def job_label(rec: JobRecord) -> Pieces:
    where = rec.allocation_text or rec.request.describe()
    return ((f"{rec.id:>6}  ", "bold"), f"{rec.display_name}  ", (f"{rec.user}  {where}", "dim"))


def stop_text(rec: JobRecord) -> str:
    """What cancelling ``rec`` does, by runner."""
    if rec.pending:
        return "It leaves the queue."
    if rec.runner == "sim":
        return "The simulated job ends at the next scheduling pass."
    if rec.runner == "slurm":
        return "Slurm stops it (scancel): SIGTERM, then SIGKILL after the cluster's KillWait."
    return "Its processes get SIGTERM, then SIGKILL after the grace period."
