"""Synthetic jobs and the processes (ranks) they run on GPUs, MIG devices and MPS servers."""

from __future__ import annotations

from dataclasses import dataclass, field

from gputui.core.model import ProcessInfo
from gputui.synth.load import Load, LoadProfile


@dataclass(frozen=True, slots=True)
class Target:
    """Where one rank of a job runs: a whole GPU, a MIG compute instance, or an MPS client slot."""

    gpu: int
    gi_id: int | None = None
    ci_id: int | None = None
    mps_threads: int | None = None  # CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of an MPS client

    @property
    def is_mps(self) -> bool:
        return self.mps_threads is not None


@dataclass(slots=True)
class Job:
    """A unit of work with its timetable in whole seconds from the start of the timeline.

    ``start_t`` below 0 means the job was already running when the timeline began (no start events);
    ``end_t`` None means it is still running at the end.
    """

    job_id: str
    user: str
    command: str
    targets: tuple[Target, ...]
    load: LoadProfile
    start_t: int
    end_t: int | None = None
    submit_t: int | None = None  # None: submitted before the timeline began
    exit_code: int = 0
    ranks: list[Rank] = field(default_factory=list)
    state: Load | None = None

    @property
    def gpus(self) -> tuple[int, ...]:
        return tuple(sorted({t.gpu for t in self.targets}))

    @property
    def is_mps(self) -> bool:
        return any(t.is_mps for t in self.targets)


class Rank:
    """One process of a running job on one GPU; caches its ProcessInfo while nothing changes."""

    __slots__ = ("job", "target", "pid", "ptype", "mem_offset", "util_offset", "_info")

    def __init__(self, job: Job, target: Target, pid: int, rank: int) -> None:
        self.job = job
        self.target = target
        self.pid = pid
        self.ptype = "M+C" if target.is_mps else "C"
        # rank 0 of a data-parallel job holds a little more memory (optimizer state, logging) and the
        # others trail it slightly in utilisation while they wait on collectives
        self.mem_offset = 384 if rank == 0 and len(job.targets) > 1 else 0
        self.util_offset = 1.5 * rank
        self._info: ProcessInfo | None = None

    @property
    def util(self) -> float:
        assert self.job.state is not None
        u = self.job.state.util - self.util_offset
        return u if u > 0.0 else 0.0

    @property
    def mem(self) -> int:
        assert self.job.state is not None
        return self.job.state.mem + self.mem_offset

    def info(self) -> ProcessInfo:
        mem = self.mem
        info = self._info
        if info is None or info.used_memory_mib != mem:
            t = self.target
            info = ProcessInfo(self.pid, self.ptype, mem, self.job.user, self.job.command, t.gi_id, t.ci_id)
            self._info = info
        return info
