"""Who holds which GPU unit: from job allocations (gputui's queue, Slurm), from a recording's job events, or,
where no job is known to hold anything on a GPU, from the processes the driver lists on it.

A unit is a whole GPU, one MIG GPU instance, or one job's share of a GPU (MPS, Slurm shards, thousandths).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from gputui.core.model import ClusterSnapshot, Event

if TYPE_CHECKING:  # a type only: the dashboard's first frame needs no scheduler module
    from gputui.core.scheduler.allocation import Allocation

ENDED_KINDS = frozenset(("job_ended", "job_failed", "job_cancelled"))
#: Where a holder is known from, most trusted first.
ORIGINS = ("queue", "slurm", "recorded", "process")
MPS_SERVER = "nvidia-cuda-mps-server"


class UnitKey(NamedTuple):
    """One held unit: ``kind`` 'gpu' (whole), 'mig' (``ref`` the GI id), 'mps' / 'share' (``ref`` the job id),
    or 'pid' (an MPS client no job is known for, ``ref`` its pid)."""

    node: str
    gpu: int
    kind: str = "gpu"
    ref: str = ""

    @property
    def label(self) -> str:
        """How a table names the unit: '0', '0 GI 3', '1 MPS', '1 pid 4242'."""
        if self.kind == "mig":
            return f"{self.gpu} GI {self.ref}"
        if self.kind == "mps":
            return f"{self.gpu} MPS"
        if self.kind == "share":
            return f"{self.gpu} share"
        if self.kind == "pid":
            return f"{self.gpu} pid {self.ref}"
        return str(self.gpu)


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds a unit; ``job_id`` None for processes no job is known for; ``since`` None where not known."""

    job_id: str | None
    user: str | None = None
    name: str | None = None
    since: float | None = None
    origin: str = "queue"  # one of ORIGINS
    pids: tuple[int, ...] = ()  # the job's processes where known (a recording's events): its MPS clients

    @property
    def identity(self) -> tuple[str | None, str | None, str]:
        """What must stay the same for a unit to count as held by the same holder."""
        return (self.job_id, self.user if self.job_id is None else None, self.origin)


Holdings = Mapping[UnitKey, Holder]


@dataclass(frozen=True, slots=True)
class HeldJob:
    """A running job as a queue knows it: what :func:`holdings_from_jobs` needs of a job record."""

    job_id: str
    allocation: Allocation
    user: str | None = None
    name: str | None = None
    start_time: float | None = None
    origin: str = "queue"


def holdings_from_jobs(jobs: Iterable[HeldJob]) -> dict[UnitKey, Holder]:
    """The units running jobs hold, by their allocations (the first job named for a unit keeps it)."""
    out: dict[UnitKey, Holder] = {}
    for job in jobs:
        holder = Holder(job.job_id, job.user, job.name, job.start_time, job.origin)
        for ng in job.allocation.nodes:
            for g in ng.gpus:
                if g.mig is not None:
                    key = UnitKey(ng.node, g.index, "mig", str(g.mig.gi_id))
                elif g.mps_percent is not None:
                    key = UnitKey(ng.node, g.index, "mps", job.job_id)
                elif not g.whole:
                    key = UnitKey(ng.node, g.index, "share", job.job_id)
                else:
                    key = UnitKey(ng.node, g.index)
                out.setdefault(key, holder)
    return out


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


class RecordedJobs:
    """The jobs a recording's events leave running, kept up to date event by event (cheap per frame)."""

    def __init__(self) -> None:
        self._running: dict[str, Event] = {}
        self._holdings: dict[UnitKey, Holder] | None = {}

    def reset(self, events: Sequence[Event] = ()) -> None:
        """Start again from ``events`` (all events up to the frame now shown, e.g. after a seek back)."""
        self._running = {}
        self._holdings = None
        self.apply(events)

    def apply(self, events: Iterable[Event]) -> None:
        """Take the events since the last call, in time order."""
        for e in events:
            if e.job_id is None:
                continue
            if e.kind == "job_started":
                self._running[e.job_id] = e
                self._holdings = None
            elif e.kind in ENDED_KINDS and self._running.pop(e.job_id, None) is not None:
                self._holdings = None

    def holdings(self) -> dict[UnitKey, Holder]:
        if self._holdings is None:
            self._holdings = _from_started(self._running.values())
        return self._holdings


def _from_started(started: Iterable[Event]) -> dict[UnitKey, Holder]:
    out: dict[UnitKey, Holder] = {}
    for e in started:
        if e.node is None or e.job_id is None:
            continue
        data = dict(e.data)
        pids = tuple(p for p in (_int(x) for x in data.get("pids", "").split(",")) if p is not None)
        name = data.get("name") or data.get("command") or None  # gputui's demo events name the command
        holder = Holder(e.job_id, data.get("user") or None, name, e.timestamp, "recorded", pids)
        gi = _int(data.get("gi_id"))
        for index in e.gpus:
            if gi is not None:
                key = UnitKey(e.node, index, "mig", str(gi))
            elif "active_thread_percentage" in data:
                key = UnitKey(e.node, index, "mps", e.job_id)
            else:
                key = UnitKey(e.node, index)
            out.setdefault(key, holder)
    return out


def _is_mps_server(command: str | None) -> bool:
    return command is not None and command.rsplit("/", 1)[-1].startswith(MPS_SERVER)


def _users(users: Iterable[str | None]) -> str | None:
    seen = list(dict.fromkeys(u for u in users if u))
    return ", ".join(seen) if seen else None


def process_holdings(
    snap: ClusterSnapshot, skip: Collection[tuple[str, int]], cache: dict[object, Holder] | None = None
) -> dict[UnitKey, Holder]:
    """Units held by processes on GPUs no job is known to hold anything of (``skip``: those that are).

    A whole GPU with compute processes is held by their users; under a running MPS daemon each client is a
    unit of its own; on a MIG GPU each instance with a process is. Graphics-only processes (a display server)
    and the MPS server itself hold nothing here. ``cache`` (kept by the caller from frame to frame) lets an
    unchanged set of users keep its Holder, so a frame costs a pass over the processes and no new objects."""
    out: dict[UnitKey, Holder] = {}
    kept: dict[object, Holder] = {} if cache is None else cache
    for node in snap.nodes:
        name = node.name
        for gpu in node.gpus:
            procs = gpu.processes
            if not (procs or gpu.mps) or (name, gpu.index) in skip or gpu.lost:
                continue
            mps = gpu.mps
            if mps is not None and mps.running and mps.clients:
                users = {p.pid: p.user for p in procs}
                for c in mps.clients:
                    user = c.user or users.get(c.pid)
                    out[UnitKey(name, gpu.index, "pid", str(c.pid))] = Holder(
                        None, user, None, None, "process", (c.pid,)
                    )
                continue
            if mps is not None:  # the MPS server holds memory for its clients, not work of its own
                server = mps.server_pid
                compute = [p for p in procs if p.type != "G" and p.pid != server and not _is_mps_server(p.command)]
            else:
                compute = [p for p in procs if p.type != "G"]
            if not compute:
                continue
            if gpu.mig_enabled:
                by_gi: dict[int, list[str | None]] = {}
                for p in compute:
                    if p.gi_id is not None:
                        by_gi.setdefault(p.gi_id, []).append(p.user)
                for gi, users_of in by_gi.items():
                    key = UnitKey(name, gpu.index, "mig", str(gi))
                    out[key] = Holder(None, _users(users_of), origin="process")
                continue
            sig = tuple(p.user for p in compute)
            holder = kept.get(sig)
            if holder is None:
                holder = kept[sig] = Holder(None, _users(sig), origin="process")
                if len(kept) > 4096:
                    kept.clear()
            out[UnitKey(name, gpu.index)] = holder
    return out


def merge_holdings(*maps: Mapping[UnitKey, Holder]) -> dict[UnitKey, Holder]:
    """One map; where two name the same unit, the earlier map (the more trusted source) wins."""
    out: dict[UnitKey, Holder] = {}
    for m in maps:
        for key, holder in m.items():
            out.setdefault(key, holder)
    return out


def held_gpus(*maps: Mapping[UnitKey, Holder]) -> frozenset[tuple[str, int]]:
    """The (node, GPU index) pairs any unit of the maps is on."""
    return frozenset((k.node, k.gpu) for m in maps for k in m)
