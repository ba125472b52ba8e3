"""Slurm jobs as the :class:`JobRecord` rows every jobs view shows: Slurm's states folded onto gputui's five,
Slurm's own state and reason kept in ``reason`` / ``end_reason``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, JobRecord
from gputui.slurm.formats.job_info import SlurmJob
from gputui.slurm.formats.nodes import SlurmNode
from gputui.slurm.requests import allocation_of, request_of
from gputui.slurm.snapshot import gpu_layout

#: Slurm job state -> gputui's state. States not listed count as RUNNING when the job holds nodes, else PENDING.
STATES = {
    "PENDING": PENDING, "REQUEUED": PENDING, "REQUEUE_HOLD": PENDING, "REQUEUE_FED": PENDING,
    "RESV_DEL_HOLD": PENDING,
    "RUNNING": RUNNING, "CONFIGURING": RUNNING, "COMPLETING": RUNNING, "SUSPENDED": RUNNING, "STOPPED": RUNNING,
    "SIGNALING": RUNNING, "STAGE_OUT": RUNNING, "RESIZING": RUNNING,
    "COMPLETED": COMPLETED, "CANCELLED": CANCELLED,
    "FAILED": FAILED, "TIMEOUT": FAILED, "NODE_FAIL": FAILED, "OUT_OF_MEMORY": FAILED, "BOOT_FAIL": FAILED,
    "DEADLINE": FAILED, "PREEMPTED": FAILED, "REVOKED": FAILED, "SPECIAL_EXIT": FAILED,
}  # fmt: skip


def gputui_state(job: SlurmJob) -> str:
    return STATES.get(job.state, RUNNING if job.nodes and job.start_time else PENDING)


def mps_per_gpu(nodes: Sequence[SlurmNode]) -> dict[str, int]:
    """Each node's MPS count per GPU: Slurm spreads a node's ``mps:N`` evenly over its GPUs."""
    out = {}
    for n in nodes:
        gpus = len(gpu_layout(n))
        total = sum(i.count or 0 for i in n.gres if i.name == "mps")
        if gpus and total:
            out[n.name] = total // gpus
    return out


def _expand_path(pattern: str, job: SlurmJob) -> str:
    """Slurm's filename patterns that squeue leaves unexpanded (%j, %x, %u, %N, %%)."""
    values = {"j": str(job.id), "A": str(job.id), "x": job.name or "", "u": job.user or "",
              "N": job.nodes[0] if job.nodes else "", "%": "%"}  # fmt: skip
    return re.sub(r"%([jAxuN%])", lambda m: values[m.group(1)], pattern)


def _output(path: str | None, job: SlurmJob) -> str | None:
    if path is None:
        if not job.batch or not job.workdir:
            return None
        path = os.path.join(job.workdir, f"slurm-{job.id}.out")  # sbatch's default
    return _expand_path(path, job)


def _end_reason(job: SlurmJob, state: str) -> str | None:
    if state in (PENDING, RUNNING):
        return None
    text = job.state.lower()
    if state in (COMPLETED, CANCELLED) or job.reason in ("None", ""):
        return text  # the reason left on a cancelled job is from before it was cancelled
    return f"{text} ({job.reason})"


def to_record(job: SlurmJob, cluster: str, mps_gpu: Mapping[str, int]) -> JobRecord:
    """The record of ``job`` as read in the latest poll."""
    state = gputui_state(job)
    options, request = request_of(job)
    ran = bool(job.nodes) and state != PENDING
    stdout = _output(job.stdout, job)
    stderr = _output(job.stderr, job) if job.stderr else stdout
    return JobRecord(
        id=job.id, cluster=cluster, user=job.user or (str(job.uid) if job.uid is not None else "?"),
        uid=job.uid if job.uid is not None else -1, options=options, request=request, runner="slurm",
        state=state, submit_time=job.submit_time or 0.0, name=job.name,
        command=(job.command,) if job.command else (), cwd=job.workdir, priority=job.priority or 0,
        reason=job.reason if state == PENDING else "None", end_reason=_end_reason(job, state),
        allocation=allocation_of(job, mps_gpu) if ran else None,
        start_time=job.start_time if ran else None,
        end_time=job.end_time if state not in (PENDING, RUNNING) else None,
        time_limit_s=job.time_limit_s, exit_code=job.exit_code if state not in (PENDING, RUNNING) else None,
        host=job.batch_host, stdout_path=stdout, stderr_path=stderr,
    )  # fmt: skip
