"""Which job holds which GPU, MIG instance and MPS client: from the job queue's records (gputui's own queue or
Slurm) and, for a replay, from the jobs the recording's events tell of."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from gputui.core.model import Event
from gputui.core.plain_text import sanitise
from gputui.export.text_format import part
from gputui.jobs.describe import granularity
from gputui.jobs.records import JobRecord

ENDED_KINDS = ("job_ended", "job_failed", "job_cancelled")


@dataclass(frozen=True, slots=True)
class Holder:
    """A job as the labels name it; ``name`` and ``user`` None where the source does not say."""

    job_id: str
    name: str | None = None
    user: str | None = None

    @property
    def parts(self) -> tuple[str, ...]:
        """The job's labels, rendered: ``hpc_job`` as dcgm-exporter's HPC job mapping names it, then gputui's."""
        return _parts(self.job_id, self.name, self.user)


@lru_cache(maxsize=65536)
def _parts(job_id: str, name: str | None, user: str | None) -> tuple[str, ...]:
    out = [part("hpc_job", job_id)]
    if name:
        out.append(part("hpc_job_name", name))
    if user:
        out.append(part("hpc_user", user))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class QueuedJob:
    """A pending or running job for the queue metrics; ``kind`` is the jobs view's granularity."""

    state: str  # "pending" | "running"
    kind: str
    reason: str | None
    submit_time: float | None
    start_time: float | None


GpuKey = tuple[str, int]  # (node, GPU index)


@dataclass
class Attribution:
    """Holders by GPU (whole GPUs, MPS shares, shards), by MIG instance (node, index, GI id) and by MPS client pid."""

    gpu: dict[GpuKey, list[Holder]] = field(default_factory=dict)
    gi: dict[tuple[str, int, int], list[Holder]] = field(default_factory=dict)
    pid: dict[tuple[str, int], Holder] = field(default_factory=dict)
    queue: list[QueuedJob] = field(default_factory=list)

    def held(self, node: str, index: int) -> bool:
        """Whether any job holds the GPU or an instance of it."""
        if (node, index) in self.gpu:
            return True
        return any(k[0] == node and k[1] == index for k in self.gi)

    def _add(self, table: dict, key: object, holder: Holder) -> None:  # type: ignore[type-arg]
        held = table.setdefault(key, [])
        if holder not in held:
            held.append(holder)


def _clean(text: str | None) -> str | None:
    return sanitise(text) if text else None


def from_records(records: Iterable[JobRecord], out: Attribution | None = None) -> Attribution:
    """The holders and the queue from job records (pending and running ones count; others are skipped)."""
    att = out if out is not None else Attribution()
    for rec in sorted(records, key=lambda r: r.id):
        if not (rec.pending or rec.running):
            continue
        kind = granularity(rec.request)
        state = "pending" if rec.pending else "running"
        att.queue.append(QueuedJob(state, kind, _clean(rec.reason), rec.submit_time, rec.start_time))
        if not rec.running or rec.allocation is None:
            continue
        holder = Holder(str(rec.id), _clean(rec.display_name), _clean(rec.user))
        for ng in rec.allocation.nodes:
            for g in ng.gpus:
                if g.mig is not None:
                    att._add(att.gi, (ng.node, g.index, g.mig.gi_id), holder)
                else:
                    att._add(att.gpu, (ng.node, g.index), holder)
    return att


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _event_kind(data: dict[str, str], gpus: int) -> str:
    if "gi_id" in data:
        return "MIG"
    if "active_thread_percentage" in data:
        return "MPS"
    return "device" if gpus else "CPU"


def from_events(events: Sequence[Event], out: Attribution | None = None) -> Attribution:
    """The jobs a recording's events (in time order, up to the frame shown) leave pending or running."""
    att = out if out is not None else Attribution()
    submitted: dict[str, Event] = {}
    running: dict[str, Event] = {}
    for e in events:
        if e.job_id is None:
            continue
        if e.kind == "job_submitted":
            submitted[e.job_id] = e
        elif e.kind == "job_started":
            running[e.job_id] = e
        elif e.kind in ENDED_KINDS:
            running.pop(e.job_id, None)
            submitted.pop(e.job_id, None)
    for job_id, e in submitted.items():
        data = dict(e.data)
        if job_id not in running:
            att.queue.append(QueuedJob("pending", _event_kind(data, len(e.gpus)), None, e.timestamp, None))
    for job_id, e in running.items():
        data = dict(e.data)
        sub = submitted.get(job_id)
        att.queue.append(
            QueuedJob("running", _event_kind(data, len(e.gpus)), None, sub.timestamp if sub else None, e.timestamp)
        )
        holder = Holder(sanitise(job_id), _clean(data.get("name")), _clean(data.get("user")))
        if e.node is None:
            continue
        gi = _int(data.get("gi_id"))
        for index in e.gpus:
            if gi is not None:
                att._add(att.gi, (e.node, index, gi), holder)
            else:
                att._add(att.gpu, (e.node, index), holder)
        for pid in (_int(p) for p in data.get("pids", "").split(",")):
            if pid is not None:
                att.pid[(e.node, pid)] = holder
    return att
