"""One scheduling pass of the process that owns a queue: stop what was asked to stop, reap what ended, start
what the scheduler decides, and write every change (with its event) to the store.

The in-memory scheduler is rebuilt from the store whenever another process changed it; otherwise it is only
refreshed with the new snapshot, as the scheduler is designed to be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gputui.core.model import ClusterSnapshot, Event
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.jobs import CANCELLED as S_CANCELLED
from gputui.core.scheduler.parse.timespec import UNLIMITED
from gputui.jobs.errors import StoreError
from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, JobRecord, final_state
from gputui.jobs.restore import build_scheduler, dependency_ids, held_pids
from gputui.jobs.runners.base import Exit, Runner
from gputui.jobs.store import JobStore
from gputui.mps.transitions import mps_events

if TYPE_CHECKING:  # the scheduler loads with the first job the queue holds (restore.build_scheduler)
    from gputui.core.scheduler.decision import Decision
    from gputui.core.scheduler.queue import Scheduler

MAX_CATCH_UP = 10_000  # simulated end-and-start steps in one tick, after a long jump forward
GPUS_GONE = "its GPUs are gone (lost, or the MIG instance was destroyed)"
_EVENT_OF = {COMPLETED: "job_ended", FAILED: "job_failed", CANCELLED: "job_cancelled"}


def job_event(kind: str, rec: JobRecord, t: float, message: str, **data: str) -> Event:
    node: str | None = None
    gpus: tuple[int, ...] = ()
    if rec.allocation is not None and rec.allocation.nodes:
        ng = rec.allocation.nodes[0]
        node, gpus = ng.node, tuple(sorted({g.index for g in ng.gpus}))
    pairs = (("user", rec.user), ("name", rec.display_name), *data.items())
    return Event(t, kind, message, node, gpus, str(rec.id), tuple(pairs))


def reset_run() -> dict[str, Any]:
    """The fields a job gets back when it returns to the queue (requeue)."""
    return dict(
        state=PENDING, reason="None", allocation=None, environment={}, start_time=None, end_time=None,
        exit_code=None, pid=None, pid_start=None, sim_end=None, stop_requested=None, stop_time=None,
    )  # fmt: skip


def holds_mps(rec: JobRecord, node: str, gpus: Iterable[int]) -> bool:
    """Whether ``rec`` holds an MPS share of one of ``gpus`` on ``node``."""
    wanted = set(gpus)
    alloc = rec.allocation
    return alloc is not None and any(
        ng.node == node and any(g.mps_percent is not None and g.index in wanted for g in ng.gpus) for ng in alloc.nodes
    )


def mps_lost_reason(prev: ClusterSnapshot, node: str, gpus: Iterable[int]) -> str:
    """Why an MPS client failed, naming the daemon (by its pid as last seen) that went away."""
    wanted = set(gpus)
    pid = next(
        (g.mps.control_pid for n in prev.nodes if n.name == node for g in n.gpus if g.index in wanted and g.mps),
        None,
    )
    which = f" (pid {pid})" if pid is not None else ""
    return f"lost its MPS server: the control daemon on {node}{which} stopped or restarted"


class Keeper:
    """The scheduling side of a job service, used only while this process owns the queue."""

    def __init__(
        self, store: JobStore, runner: Runner, cluster: str, config: SchedulerConfig, wall: Callable[[], float]
    ) -> None:
        self.store = store
        self.runner = runner
        self.cluster = cluster
        self.config = config
        self.wall = wall
        self.sched: Scheduler | None = None
        self.stale = True  # the scheduler must be rebuilt from the store before it is used
        self.job_writes = 0
        self._seen_dv: int | None = None
        self._reasons: dict[int, str] = {}
        self._clock_saved: float | None = None
        self._last_snapshot: ClusterSnapshot | None = None  # to see MPS daemons stop between passes

    # -- the pass -------------------------------------------------------------------------------
    def run(self, snapshot: ClusterSnapshot, clock: float) -> None:
        running = {r.id: r for r in self.store.jobs(self.cluster, [RUNNING])}
        try:
            self._mps_restarts(snapshot, running, clock)
            self._load(snapshot, running, clock)
            self._stops(running, clock)
            self._reap_and_schedule(running, clock)
            self._save_reasons(clock)
        except StoreError:
            self.stale = True  # memory may now be ahead of the store: rebuild from it next time
            raise

    def _load(self, snapshot: ClusterSnapshot, running: dict[int, JobRecord], clock: float) -> None:
        dv = self.store.revision()[0]
        own = {*self.runner.own_pids(snapshot, list(running.values())), *held_pids(snapshot, running.values())}
        pending: dict[int, JobRecord] = {}
        problems: dict[int, str] = {}
        if self.stale or dv != self._seen_dv or (self.sched is None and running):
            pending = {r.id: r for r in self.store.jobs(self.cluster, [PENDING])}
            if running or pending:
                deps = dependency_ids([*running.values(), *pending.values()]) - running.keys() - pending.keys()
                ended = self.store.jobs(self.cluster, ids=deps) if deps else []
                built = build_scheduler(snapshot, self.config, running.values(), pending.values(), ended, own)
                self.sched, problems = built.scheduler, built.problems
            else:  # an empty queue has nothing to place: the scheduler (about 2 MiB of modules) loads with a job
                self.sched = None
            self._reasons = {r.id: r.reason for r in pending.values()}
            self.stale = False
        elif self.sched is not None:
            problems = {i: GPUS_GONE for i in self.sched.refresh(snapshot, own)}
        self._seen_dv = dv
        for job_id, why in problems.items():
            if job_id in running:
                self._lose(running, running[job_id], why, clock)
            elif job_id in pending:
                self._end_now(pending[job_id], FAILED, why, clock)

    def _lose(self, running: dict[int, JobRecord], rec: JobRecord, why: str, clock: float) -> None:
        """A running job whose resources vanished: stop it; it ends FAILED with ``why``."""
        if rec.stop_requested == "lost":
            return
        rec = replace(rec, stop_requested="lost", end_reason=why)
        with self.store.write() as con:
            self.store.update_job(con, rec.id, RUNNING, stop_requested="lost", end_reason=why)
        self.job_writes += 1
        running[rec.id] = rec

    def _mps_restarts(self, snapshot: ClusterSnapshot, running: dict[int, JobRecord], clock: float) -> None:
        """Jobs holding MPS shares behind a control daemon that stopped (or restarted: a new pid) since the last
        pass lost their server, as real MPS clients do: they are stopped and end FAILED with that reason."""
        prev, self._last_snapshot = self._last_snapshot, snapshot
        if prev is None or snapshot.timestamp <= prev.timestamp:
            return  # a replay seeking backwards is not a daemon stopping
        for event in mps_events(prev, snapshot):
            if event.kind != "mps_stopped" or event.node is None:
                continue
            why = mps_lost_reason(prev, event.node, event.gpus)
            for rec in list(running.values()):
                if rec.sim_end is not None and rec.sim_end <= clock:
                    continue  # a simulated job that ended within the jump: its end is taken as the first of the two
                if holds_mps(rec, event.node, event.gpus):
                    self._lose(running, rec, why, clock)

    def _end_now(self, rec: JobRecord, state: str, why: str, t: float) -> None:
        with self.store.write() as con:
            if self.store.update_job(con, rec.id, rec.state, state=state, end_reason=why, end_time=t):
                self.store.add_event(con, self.cluster, job_event(_EVENT_OF[state], rec, t, f"job {rec.id}: {why}"))
        self.job_writes += 1

    # -- stopping -------------------------------------------------------------------------------
    def _over_limit(self, rec: JobRecord, clock: float) -> bool:
        limit = rec.request.time_limit_s  # only an explicit --time stops a local job
        if self.runner.kind != "local" or limit is None or limit == UNLIMITED or rec.start_time is None:
            return False
        return clock - rec.start_time >= limit

    def _stops(self, running: dict[int, JobRecord], clock: float) -> None:
        for rec in list(running.values()):
            if rec.stop_requested is None:
                if not self._over_limit(rec, clock):
                    continue
                with self.store.write() as con:
                    self.store.update_job(con, rec.id, RUNNING, stop_requested="timeout")
                rec = running[rec.id] = replace(rec, stop_requested="timeout")
            if rec.stop_time is None:
                if self.runner.stop(rec, force=False):
                    self._finish_all([(rec, Exit(clock, None))])
                    del running[rec.id]
                    continue
                now = self.wall()
                with self.store.write() as con:
                    self.store.update_job(con, rec.id, RUNNING, stop_time=now)
                running[rec.id] = replace(rec, stop_time=now)
            elif self.wall() - rec.stop_time >= self.runner.grace_s:
                self.runner.stop(rec, force=True)

    # -- ending ---------------------------------------------------------------------------------
    def _end_fields(self, rec: JobRecord, ex: Exit) -> tuple[dict[str, Any], Event]:
        stop = rec.stop_requested
        if stop == "requeue":
            return reset_run(), job_event("note", rec, ex.end_time, f"job {rec.id} requeued")
        state = final_state(stop, ex.exit_code)
        if stop == "cancel":
            why = "cancelled"
        elif stop == "timeout":
            why = "time limit reached"
        elif stop == "lost":
            why = rec.end_reason or GPUS_GONE
        elif ex.note:
            why = ex.note
        else:
            why = "completed" if ex.exit_code == 0 else f"exit code {ex.exit_code}"
        fields = dict(state=state, end_time=ex.end_time, exit_code=ex.exit_code, end_reason=why)
        code = "" if ex.exit_code is None else f" (exit code {ex.exit_code})"
        return fields, job_event(_EVENT_OF[state], rec, ex.end_time, f"job {rec.id} {why}{code}")

    def _ended_first(self, rec: JobRecord, ex: Exit) -> bool:
        """Whether a job asked to stop (cancel, time limit) had already ended by itself: its wrapper recorded an
        exit before the first signal was sent (or before any was: the queue's owner was stalled). Then the end
        that happened first wins: COMPLETED or FAILED by its exit code, never a CANCELLED it did not get."""
        if rec.stop_requested not in ("cancel", "timeout") or self.runner.kind != "local":
            return False
        if ex.exit_code is None or ex.note is not None:
            return False  # no exit of its own recorded (or a signal ended it)
        return rec.stop_time is None or ex.end_time < rec.stop_time

    def _finish_all(self, ended: Iterable[tuple[JobRecord, Exit]]) -> None:
        pairs = [(replace(r, stop_requested=None) if self._ended_first(r, ex) else r, ex) for r, ex in ended]
        with self.store.write() as con:
            for rec, ex in pairs:
                fields, event = self._end_fields(rec, ex)
                if self.store.update_job(con, rec.id, RUNNING, **fields):
                    self.store.add_event(con, self.cluster, event)
        self.job_writes += 1
        sched = self.sched
        for rec, ex in pairs:
            if rec.stop_requested == "requeue":
                self.stale = True
            elif sched is not None and rec.id in sched.running:
                state = final_state(rec.stop_requested, ex.exit_code)
                sched.finish(rec.id, ex.end_time, ok=state == COMPLETED)
                if state == CANCELLED:
                    sched.jobs[rec.id].state = S_CANCELLED

    def _reap_and_schedule(self, running: dict[int, JobRecord], clock: float) -> None:
        simulated = self.runner.kind == "sim"
        for _ in range(MAX_CATCH_UP):
            ended = [(r, ex) for r in running.values() if (ex := self.runner.check(r, clock)) is not None]
            if not ended:
                break
            if simulated:  # end and start in time order, as if every tick had been seen
                t = min(ex.end_time for _, ex in ended)
                ended = [(r, ex) for r, ex in ended if ex.end_time <= t]
            self._finish_all(ended)
            for rec, _ in ended:
                del running[rec.id]
            if not simulated:
                break
            running.update(self._schedule(t))
        running.update(self._schedule(clock))

    # -- starting -------------------------------------------------------------------------------
    def _schedule(self, t: float) -> dict[int, JobRecord]:
        if self.sched is None:  # an empty queue (see _load)
            return {}
        decisions = self.sched.schedule(t)
        if not decisions:
            return {}
        started = self._mark_running(decisions)
        if self.runner.kind == "local":
            started = self._launch(started)
        return {r.id: r for r in started}

    def _mark_running(self, decisions: list[Decision]) -> list[JobRecord]:
        assert self.sched is not None
        recs = {r.id: r for r in self.store.jobs(self.cluster, ids=[d.job_id for d in decisions])}
        started = []
        try:
            with self.store.write() as con:
                for d in decisions:
                    rec = recs.get(d.job_id)
                    if rec is None or not rec.pending:
                        self.stale = True  # cancelled meanwhile by another process
                        continue
                    fields = dict(
                        state=RUNNING, reason="None", allocation=d.allocation, environment=d.environment(),
                        start_time=d.time, sim_end=self.runner.planned_end(rec, d.time),
                        time_limit_s=self.sched.jobs[d.job_id].limit_s,
                    )  # fmt: skip
                    if not self.store.update_job(con, rec.id, PENDING, **fields):
                        self.stale = True
                        continue
                    new = replace(rec, **fields)  # type: ignore[arg-type]
                    how = " (backfilled)" if d.backfilled else ""
                    text = f"job {rec.id} started on {new.allocation_text}{how}"
                    self.store.add_event(con, self.cluster, job_event("job_started", new, d.time, text))
                    started.append(new)
        except StoreError:
            self.stale = True
            raise
        self.job_writes += 1
        for rec in started:
            self._reasons.pop(rec.id, None)
        return started

    def _launch(self, started: list[JobRecord]) -> list[JobRecord]:
        """Start the processes of jobs already stored as running; each start is recorded at once."""
        out = []
        for rec in started:
            assert rec.allocation is not None
            node = rec.allocation.nodes[0].node
            try:
                if len(rec.allocation.nodes) > 1:
                    raise OSError("local jobs run on this machine only; the job was given several nodes")
                launch = self.runner.start(rec, rec.environment.get(node, {}))
            except OSError as e:
                why = f"cannot start: {e.strerror or e}" + (f": {e.filename}" if e.filename else "")
                self._finish_all([(replace(rec, stop_requested=None), Exit(rec.start_time or 0.0, None, why))])
                continue
            fields = dict(pid=launch.pid, pid_start=launch.pid_start, host=launch.host, job_dir=launch.job_dir,
                          stdout_path=launch.stdout_path, stderr_path=launch.stderr_path)  # fmt: skip
            with self.store.write() as con:
                self.store.update_job(con, rec.id, RUNNING, **fields)
            out.append(replace(rec, **fields))  # type: ignore[arg-type]
        return out

    # -- reasons and clock ----------------------------------------------------------------------
    def _save_reasons(self, clock: float) -> None:
        pending = self.sched.pending if self.sched is not None else ()
        changed = {j.id: j.reason for j in pending if self._reasons.get(j.id) != j.reason}
        save_clock = self.runner.kind == "sim" and (
            self._clock_saved is None or bool(changed) or abs(clock - self._clock_saved) >= 5.0
        )
        if not changed and not save_clock:
            return
        with self.store.write() as con:
            for job_id, reason in changed.items():
                self.store.update_job(con, job_id, PENDING, reason=reason)
            if save_clock:
                self.store.set_clock(con, self.cluster, clock)
        if changed:
            self.job_writes += 1
        self._reasons.update(changed)
        if save_clock:
            self._clock_saved = clock

    def save_clock(self, clock: float) -> None:
        if self.runner.kind == "sim" and self._clock_saved != clock:
            with self.store.write() as con:
                self.store.set_clock(con, self.cluster, clock)
            self._clock_saved = clock
