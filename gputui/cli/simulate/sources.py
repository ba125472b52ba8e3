"""What `gputui simulate --jobs SOURCE` replays, and on which cluster.

SOURCE is told by its first bytes: a gputui job store (the state database, SQLite), a gputui recording (its job
events), else an openb pod list (CSV with ``creation_time`` / ``deletion_time``). Each becomes trace pods with
their arrival, their end and (job stores) how long they ran once started, in whole seconds. The lean engine's
resource model is whole GPUs and thousandths of one GPU: an MPS share becomes its active-thread percentage in
thousandths, and jobs on several nodes, MIG instances and Slurm shards are left out and counted (``skipped``).

The cluster is the node list (``--nodes``), a synthetic spec (``--synthetic``, as ``gputui plan`` takes it) or,
for a recording, the nodes of its first frame (CPUs and memory where the recording has them, else unbounded).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gputui.core.errors import GputuiError, RecordingError
from gputui.core.model import ClusterSnapshot, Event
from gputui.core.plain_text import sanitise
from gputui.core.scheduler.allocation import NodeGrant
from gputui.core.scheduler.policies.shapes import MILLI, PodShape
from gputui.core.scheduler.request import JobRequest
from gputui.core.simulate.workload import TraceNode, TracePod, read_pods

SQLITE_MAGIC = b"SQLite format 3\x00"
RECORDING_MAGIC = b"GPUTUI-REC\n"
UNBOUNDED = 1 << 40  # CPUs or memory a source does not know: no limit


@dataclass(slots=True)
class JobSource:
    kind: str  # "pod list" | "job store" | "recording"
    pods: list[TracePod]
    nodes: list[TraceNode] | None = None  # the source's own cluster (recordings)
    skipped: Counter[str] = field(default_factory=Counter)


def sniff(path: str) -> str:
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise GputuiError(f"{sanitise(path)}: cannot read: {e.strerror or e}") from None
    if head.startswith(SQLITE_MAGIC):
        return "job store"
    if head.startswith(RECORDING_MAGIC):
        return "recording"
    return "pod list"


def load(path: str) -> JobSource:
    kind = sniff(path)
    if kind == "job store":
        return from_store(path)
    if kind == "recording":
        return from_recording(path)
    return JobSource(kind, read_pods(path, timed=True))


# -- job stores ---------------------------------------------------------------------------------------------
def _host(req: JobRequest, k: int) -> tuple[int, int]:
    """(CPU thousandths, MiB) a request asks of its node, as far as the request says (Slurm's meanings)."""
    if req.cpu_milli is not None:
        cpu = req.cpu_milli
    elif req.cpus_per_gpu is not None and k:
        cpu = req.cpus_per_gpu * k * MILLI
    else:
        cpu = (req.cpus_per_task or 1) * (req.ntasks_per_node or req.ntasks or 1) * MILLI
    if req.mem_mib:
        mem = req.mem_mib
    elif req.mem_per_gpu_mib is not None and k:
        mem = req.mem_per_gpu_mib * k
    elif req.mem_per_cpu_mib is not None:
        mem = req.mem_per_cpu_mib * -(-cpu // MILLI)
    else:
        mem = 0
    return cpu, mem


def shape_of(req: JobRequest, grant: NodeGrant | None) -> PodShape | str:
    """A stored job as a pod shape, or why the lean engine cannot hold it."""
    if (req.nodes or 1) > 1:
        return "on several nodes"
    if req.kind == "mig" or (grant is not None and any(g.mig is not None for g in grant.gpus)):
        return "MIG instances"
    if req.kind == "shard":
        return "Slurm shards"
    if grant is not None:
        gpus = grant.gpus
        if not gpus:
            return PodShape(grant.cpu_milli, grant.mem_mib, 0, 0)
        g = gpus[0]
        milli = g.milli if g.milli is not None else (g.mps_percent * 10 if g.mps_percent is not None else MILLI)
        return PodShape(grant.cpu_milli, grant.mem_mib, 1 if milli < MILLI else len(gpus), min(milli, MILLI))
    if req.kind == "mps":
        k, milli = 1, min(MILLI, (req.mps_percent or 100) * 10)
    elif req.kind == "milli":
        k, milli = 1, req.gpu_milli or MILLI
    elif req.kind == "cpu":
        k, milli = 0, 0
    else:
        k, milli = (req.gpus_per_node or req.gpus or 1), MILLI
    cpu, mem = _host(req, k)
    return PodShape(cpu, mem, k, milli if k else 0)


def from_store(path: str) -> JobSource:
    from gputui.jobs.errors import StoreError
    from gputui.jobs.job_rows import record_from_row

    try:  # read-only: a replay changes nothing of the user's
        con = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        con.row_factory = sqlite3.Row
        rows = con.execute("SELECT * FROM jobs ORDER BY id").fetchall()
        con.close()
    except sqlite3.Error as e:
        raise GputuiError(f"{sanitise(path)}: not a gputui job store ({e})") from None
    out = JobSource("job store", [])
    for row in rows:
        try:
            rec = record_from_row(row)
        except StoreError as e:
            raise GputuiError(f"{sanitise(path)}: {e}") from None
        grant = rec.allocation.nodes[0] if rec.allocation is not None and rec.allocation.nodes else None
        if rec.allocation is not None and len(rec.allocation.nodes) > 1:
            out.skipped["on several nodes"] += 1
            continue
        shape = shape_of(rec.request, grant)
        if isinstance(shape, str):
            out.skipped[shape] += 1
            continue
        created = math.floor(rec.submit_time)
        if rec.start_time is not None and rec.end_time is not None:
            deleted, run = math.ceil(rec.end_time), max(0, round(rec.end_time - rec.start_time))
        elif rec.start_time is None and rec.end_time is not None:
            out.skipped["cancelled before they started"] += 1  # how long it would have run is not known
            continue
        else:
            deleted, run = None, None  # still running or waiting: to the end of the timeline
        out.pods.append(TracePod(f"job {rec.id}", shape, created, deleted, run))
    if not out.pods:
        raise GputuiError(f"{sanitise(path)}: no job in the store that a replay can hold")
    return out


# -- recordings ---------------------------------------------------------------------------------------------
ENDS = ("job_ended", "job_failed", "job_cancelled")


def nodes_of(snapshot: ClusterSnapshot) -> list[TraceNode]:
    out = []
    for n in snapshot.nodes:
        res = n.resources
        cpus = res.cpus if res is not None and res.cpus else None
        mem = res.memory_mib if res is not None and res.memory_mib else None
        model = next((g.name for g in n.gpus if g.name), "") or ""
        out.append(TraceNode(n.name, cpus * MILLI if cpus else UNBOUNDED, mem or UNBOUNDED, len(n.gpus), model))
    return out


def _event_shape(first: Event) -> PodShape | str:
    data = dict(first.data)
    if "gi_id" in data or "mig_device" in data:
        return "MIG instances"
    k = len(first.gpus)
    pct = data.get("active_thread_percentage")
    if k and pct is not None and pct.isdigit():
        return PodShape(0, 0, 1, min(MILLI, max(1, int(pct)) * 10))
    return PodShape(0, 0, k, MILLI if k else 0)


def from_recording(path: str) -> JobSource:
    from gputui.sources.recording.reader import RecordingReader

    try:
        reader = RecordingReader(path)
        try:
            nodes = nodes_of(reader.frame(0))
            events = list(reader.events)
        finally:
            reader.close()
    except RecordingError as e:
        raise GputuiError(str(e)) from None
    by_job: dict[str, dict[str, Event]] = {}
    for ev0 in events:
        if ev0.job_id is not None and ev0.kind.startswith("job_"):
            by_job.setdefault(ev0.job_id, {}).setdefault(ev0.kind, ev0)
    out = JobSource("recording", [], nodes)
    for job_id, ev in by_job.items():
        sub, began = ev.get("job_submitted"), ev.get("job_started")
        first = began or sub
        if first is None:
            out.skipped["without a submit or start event"] += 1
            continue
        shape = _event_shape(first)
        if isinstance(shape, str):
            out.skipped[shape] += 1
            continue
        created = math.floor((sub or first).timestamp)
        end = next((ev[k] for k in ENDS if k in ev), None)
        deleted = math.ceil(end.timestamp) if end is not None else None
        run = None
        if end is not None and began is not None:
            run = max(0, round(end.timestamp - began.timestamp))
        out.pods.append(TracePod(f"job {sanitise(job_id)}", shape, created, deleted, run))
    if not out.pods:
        raise GputuiError(f"{sanitise(path)}: the recording has no job events to replay")
    out.pods.sort(key=lambda p: (p.created or 0, p.name))
    return out


def synthetic_nodes(specs: list[str]) -> list[TraceNode]:
    """``gputui plan --synthetic`` specs as trace nodes (CPUs and memory default to what such a server has)."""
    from gputui.cli.plan_cmd import _synthetic
    from gputui.core.host_builds import host_build

    out = []
    for spec in _synthetic(specs):
        model = spec.gpus[0].model if spec.gpus else ""
        cpus, mem = host_build(model, len(spec.gpus))
        out.append(TraceNode(spec.name, (spec.cpus or cpus) * MILLI, spec.memory_mib or mem, len(spec.gpus),
                             model or ""))  # fmt: skip
    return out
