"""The job service: the one API the dashboard and the command line use to submit, preview, cancel, list and
explain jobs, and to run scheduling passes against the current snapshot.

Several processes may open the same store. One at a time owns a queue (a lease on its row, checked by pid and
process start time) and runs its scheduling passes; the others only write requests (new jobs, cancels) that
the owner picks up at its next tick, and read. A process that finds no live owner becomes the owner.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler.build import state_from_snapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.explain import Explanation, explain
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.parse.script import parse_script
from gputui.core.scheduler.parse.timespec import UNLIMITED
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.state import ClusterState
from gputui.core.scheduler.validate import StaticCapacity, check
from gputui.jobs import submission
from gputui.jobs.describe import allocation_text
from gputui.jobs.errors import JobError, JobNotFound, JobRefused, StoreError
from gputui.jobs.keeper import Keeper, job_event, reset_run
from gputui.jobs.mig_layouts import MigLayouts
from gputui.jobs.preview import preview_in
from gputui.jobs.queue_clock import QueueClock
from gputui.jobs.records import CANCELLED, ENDED, PENDING, RUNNING, JobRecord, User, current_user
from gputui.jobs.restore import build_scheduler, dependency_ids, held_pids
from gputui.jobs.runners.base import Runner
from gputui.jobs.runners.procstat import host_name, is_alive, self_stamp
from gputui.jobs.store import JobStore, Owner
from gputui.jobs.views import JobDetail, Preview, TickResult, tail


class JobService:
    """Jobs of one queue (``cluster``: a live machine or a replayed recording) in ``store``, run by ``runner``."""

    kind = "embedded"

    def __init__(
        self,
        store: JobStore,
        runner: Runner,
        cluster: str,
        config: SchedulerConfig | None = None,
        user: User | None = None,
        wall: Callable[[], float] = time.time,
        process: Owner | None = None,
        events_after: int | None = None,
        span: tuple[float, float] | None = None,
    ) -> None:
        """``process`` names this process for the queue's lease (default: its pid and start time); ticks give the
        events after id ``events_after`` (default: the newest now, as earlier ones are history); ``span``: a
        replay's first and last frame times, which its queue's clock never leaves (see queue_clock)."""
        self.store = store
        self.runner = runner
        self.cluster = cluster
        self.config = config or SchedulerConfig()
        self.user = user or current_user()
        if hasattr(runner, "owner_uid"):
            runner.owner_uid = self.user.uid  # a local runner runs only this user's rows
        self.wall = wall
        pid, start = self_stamp()
        self._me = process or Owner(pid, start, host_name())
        self._host = self._me.host
        self._lock = threading.RLock()
        self._keeper: Keeper | None = None
        self._snapshot: ClusterSnapshot | None = None  # the frame of the last pass that judged the queue
        self.clock = QueueClock(runner.kind == "sim", lambda: store.clock(cluster), lambda: store.active(cluster), span)
        self._last_event = store.last_event_id() if events_after is None else events_after
        self._seen_revision: tuple[int, int] | None = None
        self._job_writes = 0
        self.mig_layouts = MigLayouts(store.path.parent, cluster)  # a replay's GPUs re-sliced by `mig apply`
        self._running_cache: tuple[tuple[int, int], list[JobRecord]] | None = None
        self._capacity: tuple[ClusterSnapshot, ClusterState, StaticCapacity] | None = None  # for submit checks

    # -- ownership and time ---------------------------------------------------------------------
    @property
    def owner(self) -> bool:
        return self._keeper is not None

    def _alive(self, holder: Owner) -> bool:
        if holder.host != self._host:
            return True  # cannot look at another machine's processes: assume it lives
        return is_alive(holder.pid, holder.start)

    def _ensure_owner(self, t: float) -> None:
        holder = self.store.owner(self.cluster)
        if self._keeper is not None:
            if holder == self._me:
                return
            self._keeper = None  # another process took the queue over
        if holder is not None and holder != self._me and self._alive(holder):
            return
        if self.store.claim(self.cluster, self._me, self._alive, self.wall()) is None:
            self._keeper = Keeper(self.store, self.runner, self.cluster, self.config, self.wall)
            self.clock.reset()

    def now(self) -> float:
        """The queue's current time (the last tick's), for submit times and elapsed columns."""
        if self.clock.value is not None:
            return self.clock.value
        if self.runner.kind == "sim":
            stored = self.clock.saved()
            if stored is not None:
                return stored
        return self._snapshot.timestamp if self._snapshot is not None else self.wall()

    # -- the tick -------------------------------------------------------------------------------
    def tick(self, snapshot: ClusterSnapshot, now: float | None = None) -> TickResult:
        """One scheduling pass (if this process owns the queue) against ``snapshot``; never raises for a store
        problem (see ``TickResult.error``)."""
        with self._lock:
            if self.runner.kind == "sim":
                snapshot = self.mig_layouts.apply(snapshot)
            t = snapshot.timestamp if now is None else now
            error = None
            judge = True
            try:
                self._ensure_owner(t)
                if self._keeper is not None:
                    step = self.clock.advance(t)
                    clock, judge = step.clock, step.judge
                    if judge and snapshot.nodes:  # an empty snapshot is a source hiccup: judge no job by it
                        self._keeper.run(snapshot, clock)
                else:
                    self.clock.reset()
                    clock = self.now() if self.runner.kind == "sim" else t
                    judge = clock <= t
            except StoreError as e:
                error = str(e)
                clock = self.clock.value if self.clock.value is not None else t
            if judge or self._snapshot is None:
                self._snapshot = snapshot
            running = self._running(error is None)
            if not judge:  # a frame from before the queue's clock: it shows only the jobs that ran then
                running = [r for r in running if r.start_time is None or r.start_time <= t]
            events: tuple = ()
            if error is None:
                try:
                    new = self.store.events_after(self.cluster, self._last_event)
                    if new:
                        self._last_event = new[-1][0]
                    events = tuple(e for _, e in new)
                except StoreError as e:
                    error = str(e)
            shown = self.runner.overlay(snapshot, running, clock)
            return TickResult(shown, events, clock, self.owner, error, paused=not judge)

    def _running(self, fresh: bool) -> list[JobRecord]:
        cache = self._running_cache
        if fresh:
            rev = self.store.revision()
            if cache is None or cache[0] != rev:
                cache = self._running_cache = (rev, self.store.jobs(self.cluster, [RUNNING]))
        return cache[1] if cache is not None else []

    def changed(self) -> bool:
        """Whether any job changed (in this process or another) since the last call; cheap enough for each poll."""
        with self._lock:
            other = self.store.revision()[0]
            key = (other, self._job_writes + (self._keeper.job_writes if self._keeper is not None else 0))
            if key == self._seen_revision:
                return False
            self._seen_revision = key
            return True

    # -- submitting -----------------------------------------------------------------------------
    def _check_request(self, rec: JobRecord) -> None:
        snap = self._snapshot
        if snap is not None and snap.nodes:
            if self._capacity is None or self._capacity[0] is not snap:
                state = state_from_snapshot(snap, self.config)
                self._capacity = (snap, state, StaticCapacity(state))
            check(self._capacity[1], self._capacity[2], rec.request)
        for _kind, dep in rec.request.dependencies:
            other = self.store.get(dep)
            if other is None or other.cluster != self.cluster:
                raise RequestError(f"--dependency: no job {dep}")

    def submit(
        self,
        options: str | Sequence[str] = "",
        command: Sequence[str] = (),
        *,
        script: str | os.PathLike[str] | None = None,
        user: User | None = None,
        cwd: str | None = None,
    ) -> JobRecord:
        """Queue a job: Slurm options with a command (argv), or a batch script; returns it as stored (PENDING).

        Raises RequestError (the parser's one line), JobError (no command, unreadable script) or StoreError.
        """
        with self._lock:
            sub = submission.build(options, command, script)
            who = user or self.user
            limit = sub.request.time_limit_s
            rec = JobRecord(
                id=0, cluster=self.cluster, user=who.name, uid=who.uid, options=sub.options, request=sub.request,
                runner=self.runner.kind, state=PENDING, submit_time=self.now(), name=sub.request.name,
                command=sub.command, script=sub.script, script_path=sub.script_path, cwd=cwd or os.getcwd(),
                priority=sub.request.priority,
                time_limit_s=None if limit == UNLIMITED else (self.config.default_time_s if limit is None else limit),
            )  # fmt: skip
            rec = self.runner.validate(rec)
            self._check_request(rec)
            with self.store.write() as con:
                job_id = self.store.insert_job(con, rec)
                rec = replace(rec, id=job_id)
                text = f"job {job_id} submitted by {rec.user}: {rec.request.describe()}"
                self.store.add_event(con, self.cluster, job_event("job_submitted", rec, rec.submit_time, text))
            self._touched()
            return rec

    def _touched(self) -> None:
        self._job_writes += 1
        if self._keeper is not None:
            self._keeper.stale = True

    # -- previews and explanations --------------------------------------------------------------
    def _scratch(self, extra_deps: Iterable[int] = ()) -> Scheduler:
        """A throw-away scheduler with the queue as stored, on the last snapshot."""
        if self._snapshot is None:
            raise JobError("no cluster snapshot yet: wait for the first poll")
        running = self.store.jobs(self.cluster, [RUNNING])
        pending = self.store.jobs(self.cluster, [PENDING])
        deps = (dependency_ids([*running, *pending]) | set(extra_deps)) - {r.id for r in (*running, *pending)}
        ended = self.store.jobs(self.cluster, ids=deps) if deps else []
        own = {*self.runner.own_pids(self._snapshot, running), *held_pids(self._snapshot, running)}
        return build_scheduler(self._snapshot, self.config, running, pending, ended, own).scheduler

    def preview(self, options: str | Sequence[str], script: str | os.PathLike[str] | None = None) -> Preview:
        """Where a request would land now, or why it would wait; stores nothing. Raises RequestError / JobError."""
        with self._lock:
            words = submission.words_of(options)
            if script is not None:
                request = parse_script(submission.read_script(script), words)
            else:
                request = parse_options(words)
            sched = self._scratch(dep for _kind, dep in request.dependencies)
            now = self.now()
            job = sched.submit(request, now, job_id=max([*sched.jobs, self._max_id()]) + 1)
            return preview_in(sched, request, job.id, now)

    def _max_id(self) -> int:
        rows = self.store.jobs(None, limit=1, newest_first=True)
        return rows[0].id if rows else 0

    def explain(self, job_id: int) -> Explanation:
        """Why a job waits (Slurm's word and a sentence), where it runs, or how it ended."""
        with self._lock:
            rec = self._get(job_id)
            now = self.now()
            if rec.running:
                since = int(now - (rec.start_time or now))
                stop = f"; being stopped ({rec.stop_requested})" if rec.stop_requested else ""
                text = f"running on {rec.allocation_text} for {since} s{stop}"
                return Explanation(rec.id, rec.state, "None", text)
            if rec.ended:
                code = "" if rec.exit_code is None else f", exit code {rec.exit_code}"
                return Explanation(rec.id, rec.state, "None", f"{rec.state.lower()}: {rec.end_reason or ''}{code}")
            sched = self._scratch()
            if rec.id not in sched.jobs:
                return Explanation(rec.id, rec.state, rec.reason, "cannot be queued on this cluster")
            started = {d.job_id: d for d in sched.schedule(now)}
            if rec.id in started:
                where = allocation_text(started[rec.id].allocation)
                return Explanation(rec.id, rec.state, "None", f"starts at the next scheduling pass, on {where}")
            return explain(sched, rec.id, now)

    # -- changing jobs --------------------------------------------------------------------------
    def _get(self, job_id: int) -> JobRecord:
        rec = self.store.get(job_id)
        if rec is None:
            raise JobNotFound(f"no job {job_id}")
        if rec.cluster != self.cluster:
            raise JobNotFound(f"job {job_id} is in another queue ({rec.cluster})")
        return rec

    def _mine(self, job_id: int, user: User | None, verb: str) -> JobRecord:
        rec = self._get(job_id)
        who = user or self.user
        if rec.uid != who.uid:
            raise JobRefused(f"job {job_id} belongs to {rec.user}; only its owner may {verb} it")
        return rec

    def cancel(self, job_id: int, user: User | None = None) -> JobRecord:
        """Cancel a job: a pending one leaves the queue at once, a running one is stopped (SIGTERM to its
        process group, SIGKILL after the grace period; a simulated one ends at the next tick)."""
        with self._lock:
            rec = self._mine(job_id, user, "cancel")
            if rec.ended:
                raise JobRefused(f"job {job_id} has already ended ({rec.state.lower()})")
            now = self.now()
            with self.store.write() as con:
                if self.store.update_job(con, job_id, PENDING, state=CANCELLED, end_time=now, end_reason="cancelled"):
                    self.store.add_event(
                        con, self.cluster, job_event("job_cancelled", rec, now, f"job {job_id} cancelled")
                    )
                elif rec.stop_requested != "cancel":
                    self.store.update_job(con, job_id, RUNNING, stop_requested="cancel")
            self._touched()
            return self._get(job_id)

    def requeue(self, job_id: int, user: User | None = None) -> JobRecord:
        """Put an ended job back in the queue, or stop a running one and queue it again."""
        with self._lock:
            rec = self._mine(job_id, user, "requeue")
            if rec.pending:
                raise JobRefused(f"job {job_id} is already pending")
            with self.store.write() as con:
                if rec.running:
                    self.store.update_job(con, job_id, RUNNING, stop_requested="requeue")
                else:
                    fields = reset_run()
                    self.store.update_job(con, job_id, rec.state, **fields, end_reason=None, submit_time=self.now())
                    self.store.add_event(
                        con, self.cluster, job_event("note", rec, self.now(), f"job {job_id} requeued")
                    )
            self._touched()
            return self._get(job_id)

    def set_priority(self, job_id: int, priority: int, user: User | None = None) -> JobRecord:
        """Change a pending job's priority (higher starts first)."""
        with self._lock:
            rec = self._mine(job_id, user, "change")
            if not rec.pending:
                raise JobRefused(f"job {job_id} is {rec.state.lower()}; only a pending job's priority can change")
            if not 0 <= priority <= 2**32:
                raise RequestError(f"--priority: {priority} is out of range 0..{2**32}")
            with self.store.write() as con:
                self.store.update_job(con, job_id, PENDING, priority=priority)
            self._touched()
            return self._get(job_id)

    # -- reading --------------------------------------------------------------------------------
    def list(
        self, states: Iterable[str] | None = None, user: str | None = None, limit: int | None = None
    ) -> list[JobRecord]:
        """Jobs of this queue in id order; ``states`` e.g. (PENDING, RUNNING); ``limit`` keeps the newest."""
        if limit is None:
            return self.store.jobs(self.cluster, states, user)
        return list(reversed(self.store.jobs(self.cluster, states, user, limit=limit, newest_first=True)))

    def get(self, job_id: int) -> JobDetail:
        """A job with its explanation and the tail of its output; raises JobNotFound."""
        rec = self._get(job_id)
        try:
            why = self.explain(job_id)
            reason, text = why.reason, why.text
        except (StoreError, JobError) as e:
            reason, text = rec.reason, str(e)
        return JobDetail(rec, reason, text, tail(rec.stdout_path), tail(rec.stderr_path))

    def close(self) -> None:
        """Give the queue up (another process may own it now) and close the store."""
        with self._lock:
            if self._keeper is not None:
                try:
                    if self.clock.value is not None:
                        self._keeper.save_clock(self.clock.value)
                    self.store.release(self.cluster, self._me)
                except StoreError:
                    pass  # the lease lapses by itself once this process is gone
                self._keeper = None
            self.store.close()


__all__ = ["ENDED", "JobService"]
