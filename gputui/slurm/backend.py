"""The job back end for a Slurm cluster: the :class:`~gputui.jobs.backend.JobBackend` the dashboard drives,
with sbatch, scancel and scontrol doing the work and slurmctld deciding.

Jobs are read from the source's latest poll (no squeue of its own). Every call that changes something shows
up in the event log with what Slurm answered. A job submitted here carries gputui's prediction of where it
would land, set beside Slurm's real placement once it starts.
"""

from __future__ import annotations

import os
import shlex
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from gputui.core.model import ClusterSnapshot, Event
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.explain import Explanation
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.parse.script import parse_script
from gputui.core.scheduler.parse.timespec import UNLIMITED
from gputui.core.scheduler.request import JobRequest
from gputui.jobs import submission
from gputui.jobs.errors import JobError, JobNotFound, JobRefused, StoreError
from gputui.jobs.keeper import job_event
from gputui.jobs.records import COMPLETED, PENDING, RUNNING, JobRecord, User, current_user
from gputui.jobs.store import JobStore
from gputui.jobs.views import JobDetail, Preview, TickResult, tail
from gputui.slurm import calls
from gputui.slurm.batch_script import WrappedCommands
from gputui.slurm.errors import SlurmError
from gputui.slurm.jobs.events import transition
from gputui.slurm.jobs.explain import explanation
from gputui.slurm.jobs.outcome import outcome_of
from gputui.slurm.jobs.records import mps_per_gpu, to_record
from gputui.slurm.settings import SlurmSettings, read_config
from gputui.slurm.source import SlurmPoll, SlurmSource
from gputui.slurm.whatif import comparison, predict

#: Ended jobs kept after Slurm forgets them (squeue shows them for MinJobAge, 300 s by default).
KEEP_ENDED = 2000
#: Seconds a job submitted here may stay unlisted by squeue (a poll begun before sbatch returned) before it
#: counts as gone.
UNLISTED_GRACE_S = 60.0


@dataclass(frozen=True, slots=True)
class Submitted:
    """What this back end knows of a job it submitted and Slurm does not report back."""

    options: str
    request: JobRequest
    command: tuple[str, ...]
    script: str | None
    script_path: str | None
    argv: tuple[str, ...]
    prediction: Preview | None
    prediction_error: str | None = None


class SlurmJobs:
    """Jobs of the cluster ``source`` polls; submit / cancel / requeue / priority through Slurm's commands."""

    kind = "slurm"

    def __init__(
        self,
        source: SlurmSource,
        *,
        config: SchedulerConfig | None = None,
        user: User | None = None,
        wall: Callable[[], float] = time.time,
        store: JobStore | None = None,
    ) -> None:
        self.source = source
        self.store = store  # where predictions are kept for other shells and restarts (None: this process only)
        self.cluster = f"slurm:{source.cluster_name}"
        self.client = source.client
        self.config = config  # None: set up from the cluster's own configuration (SlurmSettings)
        self._config_text: str | None = None  # scontrol show config, asked once
        self._made: dict[int, tuple[object, JobRecord]] = {}
        self.user = user or current_user()
        self.wall = wall
        self._lock = threading.RLock()
        self._records: dict[int, JobRecord] = {}
        self._nice: dict[int, int] = {}
        self._mine: dict[int, Submitted] = {}
        self._listed: set[int] = set()  # jobs squeue has listed at least once
        self._wrapped = WrappedCommands(self.client)
        self._calls: list[Event] = []
        self._seen: SlurmPoll | None = None
        self._first = True
        self._writes = 0
        self._reported = -1
        self._now: float | None = None

    @property
    def owner(self) -> bool:
        return False  # slurmctld schedules

    def now(self) -> float:
        return self._now if self._now is not None else self.wall()

    def changed(self) -> bool:
        with self._lock:
            if self._writes == self._reported:
                return False
            self._reported = self._writes
            return True

    # -- the tick ------------------------------------------------------------------------------------------------
    def tick(self, snapshot: ClusterSnapshot, now: float | None = None) -> TickResult:
        """Take the jobs of the source's latest poll; events for jobs that changed state and for calls made."""
        with self._lock:
            t = snapshot.timestamp if now is None else now
            self._now = t
            poll = self.source.last
            events: list[Event] = []
            if poll is not None and poll is not self._seen:
                events = self._update(poll, t)
                self._seen = poll
            events = self._calls + events
            self._calls = []
            return TickResult(snapshot, tuple(events), t, False, None)

    def _update(self, poll: SlurmPoll, t: float) -> list[Event]:
        mps = mps_per_gpu(poll.nodes)
        new: dict[int, JobRecord] = {}
        events: list[Event] = []
        made: dict[int, tuple[object, JobRecord]] = {}
        for job in poll.jobs:
            old = self._records.get(job.id)
            was = self._made.get(job.id)
            same = was is not None and was[0] is job  # unchanged: the job cache's same object
            base = was[1] if same and was is not None else to_record(job, self.cluster, mps)
            made[job.id] = (job, base)
            if same and old is not None and job.id not in self._mine:
                new[job.id] = old  # nothing Slurm says of it changed, and gputui added nothing
                continue
            rec = self._overlay(base, old)
            new[job.id] = rec
            self._nice[job.id] = job.nice
            if not self._first:
                events.extend(transition(old, rec, t, self._start_note(rec)))
        self._made = made
        self._listed.update(new)
        for job_id, old in self._records.items():
            if job_id in new:
                continue
            if job_id not in self._listed and poll.snapshot.timestamp - old.submit_time < UNLISTED_GRACE_S:
                new[job_id] = old  # submitted here while this poll's squeue ran: the next one lists it
            elif old.state in (PENDING, RUNNING) and not self._first:
                gone = replace(old, state=COMPLETED, end_time=t, end_reason="left Slurm's queue; its end was not seen")
                new[job_id] = gone
                events.append(job_event("job_ended", gone, t, f"job {job_id} left Slurm's queue (end state not seen)"))
            else:
                new[job_id] = old  # ended: kept after Slurm forgets it
        ended = sorted(i for i, r in new.items() if r.ended)
        for job_id in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del new[job_id]
        self._first = False
        if new != self._records:
            self._writes += 1
        self._records = new
        return events

    def _overlay(self, rec: JobRecord, old: JobRecord | None) -> JobRecord:
        """What Slurm does not report back: the submitter's own words, and where an ended job ran."""
        mine = self._mine.get(rec.id)
        if mine is not None:
            rec = replace(rec, options=mine.options, request=mine.request, command=mine.command, script=mine.script,
                          script_path=mine.script_path)  # fmt: skip
        kept = old.allocation if old is not None else None
        if kept is not None and rec.ended and (rec.allocation is None or rec.allocation.gpu_count < kept.gpu_count):
            rec = replace(rec, allocation=kept)  # squeue drops gres_detail once a job ends
        if old is not None and old.stop_requested and rec.state == old.state:
            rec = replace(rec, stop_requested=old.stop_requested)
        return rec

    def _said(self, job_id: int) -> Preview | dict | None:
        """What was predicted for a job submitted through gputui: here, or kept in the store by another shell."""
        mine = self._mine.get(job_id)
        if mine is not None:
            return mine.prediction if mine.prediction is not None else outcome_of(None, mine.prediction_error)
        if self.store is None:
            return None
        try:
            return self.store.prediction(self.cluster, job_id)
        except StoreError:
            return None

    def _start_note(self, rec: JobRecord) -> str | None:
        said = self._said(rec.id)
        if said is None or rec.state != RUNNING:
            return None
        return comparison(said, rec.allocation)

    # -- submitting ----------------------------------------------------------------------------------------------
    def submit(
        self,
        options: str | Sequence[str] = "",
        command: Sequence[str] = (),
        *,
        script: str | os.PathLike[str] | None = None,
        user: User | None = None,
        cwd: str | None = None,
    ) -> JobRecord:
        """sbatch a job: the options are checked by gputui's parser first (RequestError), then given to sbatch as
        argv; Slurm's refusal comes back as a SlurmError carrying its message."""
        who = user or self.user
        if who.uid != os.getuid():
            raise JobRefused(f"sbatch submits as the user running gputui; it cannot submit for {who.name}")
        words = submission.words_of(options)
        sub = submission.build(options, command, script, slurm=True)
        opts = calls.option_words(words, len(sub.command), bool(command) or script is not None)
        calls.check_for_slurm(opts, sub.request)
        prediction, problem = self._predict_quietly(sub.request)
        name = None if sub.request.name or script is not None else calls.default_name(sub.command)
        argv = calls.sbatch_argv(
            opts, command=sub.command, script_path=sub.script_path, script_args=sub.command if script else (),
            cwd=cwd or os.getcwd(), name=name,
        )  # fmt: skip
        t = self.wall()
        try:
            done = self.client.call(argv, action=True)
            job_id = calls.parse_job_id(done.stdout)
        except SlurmError as e:
            self._note(t, str(e), argv)
            raise
        warnings = "; ".join(ln.strip() for ln in done.stderr.splitlines() if ln.strip())
        limit = sub.request.time_limit_s
        rec = JobRecord(
            id=job_id, cluster=self.cluster, user=who.name, uid=who.uid, options=sub.options, request=sub.request,
            runner="slurm", state=PENDING, submit_time=t, name=sub.request.name or name, command=sub.command,
            script=sub.script, script_path=sub.script_path, cwd=cwd or os.getcwd(),
            time_limit_s=None if limit in (None, UNLIMITED) else limit,
        )  # fmt: skip
        text = f"Submitted batch job {job_id}" + (f" ({warnings})" if warnings else "")
        with self._lock:
            self._mine[job_id] = Submitted(sub.options, sub.request, sub.command, sub.script, sub.script_path,
                                           tuple(argv), prediction, problem)  # fmt: skip
            self._records.setdefault(job_id, rec)
        if self.store is not None:
            try:
                self.store.put_prediction(self.cluster, job_id, sub.options, outcome_of(prediction, problem), t)
            except StoreError as e:
                self._note(t, f"prediction not kept: {e}", argv)
        with self._lock:
            self._calls.append(job_event("job_submitted", rec, t, text, argv=shlex.join(argv)))
            self._writes += 1
        return rec

    def _predict_quietly(self, request: JobRequest) -> tuple[Preview | None, str | None]:
        try:
            return self._predict(request), None
        except (RequestError, JobError) as e:
            return None, str(e)

    def _predict(self, request: JobRequest, leave_out: int | None = None) -> Preview:
        poll = self.source.last
        if poll is None:
            raise JobError("no cluster snapshot yet: wait for the first poll")
        with self._lock:
            running = [r for r in self._records.values() if r.running]
            pending = [r for r in self._records.values() if r.pending and r.id != leave_out]
            ended = [r for r in self._records.values() if r.ended]
        settings = self.settings(poll)
        config = self.config or settings.scheduler_config()
        return predict(poll, running, pending, request, self.now(), config, settings, ended)

    def settings(self, poll: SlurmPoll) -> SlurmSettings:
        """The cluster's placement-relevant configuration (``scontrol show config`` is asked once)."""
        if self._config_text is None:
            self._config_text = read_config(self.client)
        return SlurmSettings.read(self._config_text, poll.nodes)

    def preview(self, options: str | Sequence[str], script: str | os.PathLike[str] | None = None) -> Preview:
        """Where gputui's scheduler would put the request on the cluster as Slurm reported it; Slurm decides."""
        words = submission.words_of(options)
        if script is not None:
            request = parse_script(submission.read_script(script), words, slurm=True)
        else:
            request = parse_options(words, slurm=True)
        calls.check_for_slurm(words, request)
        return self._predict(request)

    # -- changing jobs -------------------------------------------------------------------------------------------
    def _get(self, job_id: int) -> JobRecord:
        with self._lock:
            rec = self._records.get(job_id)
        if rec is None:
            raise JobNotFound(f"no job {job_id} in Slurm's queue")
        return rec

    def _own(self, job_id: int, user: User | None, verb: str) -> JobRecord:
        rec = self._get(job_id)
        who = user or self.user
        if rec.uid != who.uid and who.uid != 0:  # root is always a Slurm administrator
            raise JobRefused(f"job {job_id} belongs to {rec.user}; only its owner may {verb} it")
        return rec

    def _note(self, t: float, message: str, argv: Sequence[str], rec: JobRecord | None = None) -> None:
        with self._lock:
            if rec is not None:
                self._calls.append(job_event("note", rec, t, message, argv=shlex.join(argv)))
            else:
                self._calls.append(Event(t, "note", message, data=(("argv", shlex.join(argv)),)))

    def _act(self, rec: JobRecord, argv: list[str], done_text: str) -> str:
        """Run a change; Slurm's answer (or refusal) goes to the event log either way."""
        t = self.wall()
        try:
            done = self.client.call(argv, action=True)
        except SlurmError as e:
            self._note(t, str(e), argv, rec)
            raise
        lines = [ln.strip() for ln in (done.stderr + "\n" + done.stdout).splitlines() if ln.strip()]
        answer = "; ".join(lines) or done_text
        self._note(t, answer, argv, rec)
        return answer

    def cancel(self, job_id: int, user: User | None = None) -> JobRecord:
        """scancel the job (after refusing another user's job, or one that has ended)."""
        rec = self._own(job_id, user, "cancel")
        if rec.ended:
            raise JobRefused(f"job {job_id} has already ended ({rec.state.lower()})")
        self._act(rec, calls.scancel_argv(job_id), f"scancel {job_id}: accepted")
        return self._mark(replace(rec, stop_requested="cancel"))

    def requeue(self, job_id: int, user: User | None = None) -> JobRecord:
        """scontrol requeue: a running or ended batch job goes back to the queue."""
        rec = self._own(job_id, user, "requeue")
        if rec.pending:
            raise JobRefused(f"job {job_id} is already pending")
        self._act(rec, calls.requeue_argv(job_id), f"job {job_id} requeue accepted by Slurm")
        return self._mark(replace(rec, stop_requested="requeue") if rec.running else rec)

    def set_priority(self, job_id: int, priority: int, user: User | None = None) -> JobRecord:
        """Move a pending job's priority to ``priority`` through its nice value (Slurm subtracts nice from
        priority); lowering is for its owner, raising needs a Slurm administrator (a negative nice)."""
        rec = self._own(job_id, user, "change")
        if not rec.pending:
            raise JobRefused(f"job {job_id} is {rec.state.lower()}; only a pending job's priority can change")
        who = user or self.user
        nice = self._nice.get(job_id, 0) + (rec.priority - priority)
        if abs(nice) > 2147483645:
            raise RequestError(f"--priority: {priority} is too far from the job's priority {rec.priority}")
        if nice < 0 and who.uid != 0:
            raise JobRefused(
                f"job {job_id}: raising a Slurm job's priority needs a negative nice, which only administrators set"
            )
        self._act(rec, calls.nice_argv(job_id, nice), f"job {job_id}: Nice={nice} accepted by Slurm")
        return self._mark(replace(rec, priority=priority))

    def _mark(self, rec: JobRecord) -> JobRecord:
        with self._lock:
            self._records[rec.id] = rec
            self._writes += 1
        return rec

    # -- reading -------------------------------------------------------------------------------------------------
    def list(
        self, states: Iterable[str] | None = None, user: str | None = None, limit: int | None = None
    ) -> list[JobRecord]:
        with self._lock:
            recs = sorted(self._records.values(), key=lambda r: r.id)
        wanted = set(states) if states is not None else None
        recs = [r for r in recs if (wanted is None or r.state in wanted) and (user is None or r.user == user)]
        return recs[-limit:] if limit is not None and limit < len(recs) else recs

    def explain(self, job_id: int) -> Explanation:
        """Slurm's reason (in its word and in plain words), gputui's prediction beside it where there is one."""
        rec = self._get(job_id)

        def now_text(request: JobRequest) -> str:
            return self._predict(request, leave_out=job_id).text

        return explanation(rec, self._said(job_id), self.now(), now_text)

    def get(self, job_id: int) -> JobDetail:
        rec = self._with_wrapped_command(self._get(job_id))
        why = self.explain(job_id)
        return JobDetail(rec, why.reason, why.text, tail(rec.stdout_path), tail(rec.stderr_path))

    def _with_wrapped_command(self, rec: JobRecord) -> JobRecord:
        """``rec`` with the command of its ``sbatch --wrap`` script, when Slurm lists none (a job submitted
        elsewhere); asked once per job, and left out when Slurm does not give the script (another user's job)."""
        if rec.command or rec.script is not None or rec.script_path:
            return rec
        known = self._wrapped.command(rec.id)
        return rec if known is None else replace(rec, command=(known,))

    def close(self) -> None:
        """Slurm keeps the jobs; only the prediction store is closed. (The source is closed by whoever opened it.)"""
        if self.store is not None:
            self.store.close()
