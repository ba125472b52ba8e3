"""Which queue and runner a source gets, and opening a job service for it from the state directory.

A live machine (NVML) has one queue whose jobs run as local processes; each replayed recording or log has its
own queue of simulated jobs, on the recording's clock. All queues live in the same store.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from gputui.cli.source_factory import Opened
from gputui.core.errors import GputuiError, NvmlUnavailable
from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.timefmt import utc_text
from gputui.jobs.backend import JobBackend
from gputui.jobs.queue_look import SSH_NO_JOBS, cluster_key, is_simulated, is_slurm, is_ssh
from gputui.jobs.records import User
from gputui.jobs.runners.base import Runner
from gputui.jobs.runners.local import LocalRunner
from gputui.jobs.runners.simulated import DEFAULT_DURATION_S, SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import DB_NAME, JobStore
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource
from gputui.statedir import make_private_dir, state_dir

#: How long a command waits for another gputui's write to finish before it says the store is locked.
BUSY_TIMEOUT_S = 5.0


def runner_for(source: Source, root: Path, grace_s: float = 10.0) -> Runner:
    if is_simulated(source):
        return SimRunner()
    return LocalRunner(make_private_dir(root / "jobs"), grace_s=grace_s)


def open_service(
    source_arg: str | None,
    source: Source,
    *,
    root: Path | None = None,
    config: SchedulerConfig | None = None,
    user: User | None = None,
    busy_timeout_s: float = 5.0,
    grace_s: float = 10.0,
    events_after: int | None = None,
) -> JobBackend:
    """The job service for ``source`` on the store in ``root`` (default: the user's state directory); for a
    Slurm cluster, the Slurm back end (Slurm keeps the jobs, so no store is opened). ``events_after``: the
    newest event id the caller has seen (default: the store's newest now); later ones come from its ticks."""
    if is_ssh(source):
        raise GputuiError(SSH_NO_JOBS)
    root = state_dir() if root is None else make_private_dir(root)
    store = JobStore(root / DB_NAME, busy_timeout_s=busy_timeout_s)
    if is_slurm(source):
        from gputui.slurm import SlurmJobs, SlurmSource

        return SlurmJobs(cast(SlurmSource, source), config=config, user=user, store=store)
    cluster = cluster_key(source_arg, source)
    if is_simulated(source):  # a job without --time runs, and says it runs, for the simulation's default
        config = replace(config or SchedulerConfig(), default_time_s=DEFAULT_DURATION_S)
    span = (source.start_time, source.end_time) if isinstance(source, ReplaySource) else None
    runner = runner_for(source, root, grace_s)
    return JobService(store, runner, cluster, config, user, events_after=events_after, span=span)


@dataclass
class Session:
    """A command-line session: the source, the service, and the snapshot its pass ran against."""

    source: Source
    service: JobBackend
    snapshot: ClusterSnapshot
    notice: str | None = None
    clock: float | None = None  # a replay's queue clock (the snapshot is the frame on screen then)

    def tick(self) -> None:
        """Another pass against the session's frame, at the queue's clock."""
        self.service.tick(self.snapshot, self.clock)

    def say_notice(self) -> None:
        """The notice (what kind of queue this is, what the source fell back to) on stderr."""
        if self.notice:
            print(f"gputui: {self.notice}", file=sys.stderr)

    def close(self) -> None:
        try:
            self.service.close()
        finally:
            self.source.close()


def _snapshot(source: Source, service: JobBackend) -> tuple[ClusterSnapshot, float | None]:
    """A live poll, or for a replay the frame on screen at the queue's clock, and that clock."""
    if isinstance(source, ReplaySource) and isinstance(service, JobService):
        t = service.clock.resume_at(source.start_time)
        return source.seek(t), t
    return source.poll(), None


def simulated_note(source: Source, clock: float | None) -> str:
    """What a job command says on a replay's queue: nothing runs, and where on the timeline the queue is."""
    when = "" if clock is None else f" at {utc_text(clock)}"
    return f"simulated on the {source.description}{when}: nothing is executed"


def open_for_jobs(source_arg: str | None, fields: list[str] | None = None) -> Opened:
    """The source a job command works on: ``source_arg``, else the live machine. Never the demo unasked: a job
    command that fell back to it would claim that jobs run where nothing does."""
    from gputui.cli.source_factory import open_nvml, open_source

    if source_arg is not None:
        return open_source(source_arg, fields=fields)
    try:
        return Opened(open_nvml())
    except NvmlUnavailable as e:
        raise NvmlUnavailable(
            f"{e}, so no job can run on this machine; add --source demo to try the queue on the bundled demo "
            "(simulated: nothing is executed), or --source FILE for a recording"
        ) from None


def open_session(
    source_arg: str | None, busy_timeout_s: float | None = None, fields: list[str] | None = None
) -> Session:
    """Open ``source_arg`` (default: the live machine; see open_for_jobs), and run one scheduling pass (if no
    other gputui owns the queue) so that the answer reflects the present. ``fields``: a header-less CSV's
    `--fields`."""
    opened = open_for_jobs(source_arg, fields)
    try:
        timeout = BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s
        service = open_service(source_arg, opened.source, busy_timeout_s=timeout)
    except BaseException:
        opened.source.close()
        raise
    try:
        snap, t = _snapshot(opened.source, service)
        service.tick(snap, t)
    except BaseException:
        service.close()
        opened.source.close()
        raise
    notes = [opened.notice] if opened.notice else []
    if is_simulated(opened.source):
        notes.append(simulated_note(opened.source, t))
    return Session(opened.source, service, snap, "; ".join(notes) or None, t)
