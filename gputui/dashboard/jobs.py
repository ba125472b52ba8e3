"""The dashboard's job controller: the job service (opened after the first frame, or given), each poll's tick,
and what the job actions (submit, cancel, requeue, priority) ask, do and say.

The service is called off the event loop (the poll thread's tick, the shell's thread workers); everything
here returns plain data: a notice, a choice or a confirmation to ask, or a ``JobChange``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.scheduler.job_states import CANCELLED
from gputui.core.timefmt import utc_text
from gputui.dashboard.job_records import check_priority, job_label, jobs_on_gpu, stop_text
from gputui.dashboard.outcomes import Choice, Confirm, Notice, Prompt

if TYPE_CHECKING:  # the job service loads after the first frame; this module before it
    from gputui.dashboard.job_ticks import JobsTick
    from gputui.jobs.backend import JobBackend
    from gputui.jobs.records import JobRecord


def queue_kind(service: JobBackend) -> str:
    """One line that says what submitting here does."""
    if service.kind == "slurm":
        return "Slurm queue: jobs go to the cluster's Slurm (sbatch, scancel)"
    if getattr(getattr(service, "runner", None), "kind", None) == "sim":
        return "simulated queue on this replay: nothing is executed"
    return "local queue: jobs run as processes on this machine, as you"


def paused_text(clock: float) -> str:
    return f"queue paused at {utc_text(clock)}: the replay is behind the queue's clock; jobs move again there"


@dataclass(frozen=True, slots=True)
class JobChange:
    """A change made (submit, cancel, requeue, priority) and the job list read right after it."""

    record: JobRecord
    records: tuple[JobRecord, ...]
    now: float


class JobsController:
    """With ``service`` None (no store), every job action says why it is unavailable (``note``); with ``opener``
    set, the service opens in a thread after the first frame (``open_later``)."""

    def __init__(
        self,
        service: JobBackend | None = None,
        note: str | None = None,
        opener: Callable[[], JobBackend] | None = None,
    ) -> None:
        self.service = service
        self.note = note  # why jobs are unavailable, shown in the view and in notices
        self.opener = None if service is not None else opener
        self.opening: threading.Thread | None = None
        self._opened: JobBackend | None = None  # set by the opening thread, so that close finds it in any case
        self._error: str | None = None
        self._relist = False  # a change was made: the next tick reads the job list again
        self.paused_at: float | None = None  # the queue's clock while a replay is behind it

    @property
    def attached(self) -> bool:
        """Whether a queue is (or will be) there: the jobs view then shows it, and the events log job events."""
        return self.service is not None or self.opener is not None or self.note is not None

    # -- opening and closing ---------------------------------------------------------------------
    def open_later(self, deliver: Callable[[JobBackend | None, str | None], object]) -> None:
        """Open the service with ``opener`` in a thread; ``deliver(service, note)`` runs on that thread."""
        opener = self.opener
        if opener is None or self.opening is not None:
            return

        def run() -> None:
            try:
                service = opener()
            except GputuiError as e:
                deliver(None, f"jobs are unavailable: {e}")
                return
            except Exception as e:  # a bug: said, and the dashboard runs on without jobs
                deliver(None, f"jobs are unavailable: opening failed: {e!r}")
                return
            self._opened = service
            deliver(service, None)

        self.opening = threading.Thread(target=run, name="gputui-jobs", daemon=True)
        self.opening.start()

    def opened(self, service: JobBackend | None, note: str | None) -> Notice | None:
        """The opening thread's outcome, on the event loop."""
        self.opener = None
        if service is None:
            self.note = note
            return Notice(note or "jobs are unavailable", "warning", 8)
        self.service = service
        return None

    def close(self, timeout: float = 3.0) -> None:
        """After the app has run: wait for a service still opening, then close the service. (One that takes longer,
        held up by a locked store, ends with the process; the next gputui takes over its lease as a dead one's.)"""
        if self.opening is not None:
            self.opening.join(timeout)
        service = self.service or self._opened
        if service is not None:
            service.close()

    # -- each poll -------------------------------------------------------------------------------
    def tick(self, snapshot: ClusterSnapshot) -> JobsTick | None:
        """On the poll thread, with each snapshot; None without a service."""
        service = self.service
        if service is None:
            return None
        # After a change the list is read again even if the store says nothing changed since the change's own
        # read: a tick computed before the change may be drawn after it, and must not have the last word.
        relist, self._relist = self._relist, False
        from gputui.dashboard.job_ticks import tick_jobs

        return tick_jobs(service, snapshot, relist=relist)

    def tick_notice(self, tick: JobsTick) -> Notice | None:
        """A store problem, said once when it starts; a pause of the queue, said once when it starts."""
        was_paused, self.paused_at = self.paused_at, (tick.now if tick.paused else None)
        if tick.error != self._error:
            self._error = tick.error
            if tick.error is not None:
                return Notice(f"jobs: {tick.error}", "warning", 8)
        if self.paused_at is not None and was_paused is None:
            return Notice(paused_text(self.paused_at), timeout=8)
        return None

    def status(self) -> str:
        """The jobs view's line under its counts: which kind of queue this is, and why it is still."""
        lines = [queue_kind(self.service)] if self.service is not None else []
        if self.paused_at is not None:
            lines.append(paused_text(self.paused_at))
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    # -- actions ---------------------------------------------------------------------------------
    def unavailable(self) -> Notice | None:
        """Why no job action can run now, or None."""
        if self.service is None and self.opener is not None:
            return Notice("The job queue is still opening; try again in a moment", timeout=4)
        if self.service is None:
            return Notice(self.note or "jobs are not available here", "warning", 6)
        return None

    def change(self, call: Callable[[JobBackend], JobRecord]) -> JobChange:
        """Run a change on the service and read the job list again (in a thread); raises GputuiError."""
        service = self.service
        assert service is not None
        rec = call(service)
        self._relist = True
        from gputui.dashboard.job_ticks import list_jobs

        return JobChange(rec, list_jobs(service), service.now())

    def to_cancel(
        self,
        records: Sequence[JobRecord],
        selected: JobRecord | None,
        in_view: bool,
        gpu: tuple[NodeSnapshot, GpuSnapshot] | None,
    ) -> Notice | list[JobRecord]:
        """The job(s) a cancel may mean: the one selected in the jobs view (``in_view``: it has the focus), else
        those on the highlighted GPU."""
        if in_view:
            if selected is None:
                return Notice("No job selected", timeout=4)
            if selected.ended:
                return Notice(f"job {selected.id} has already ended ({selected.state.lower()})", timeout=4)
            return [selected]
        if gpu is None:
            return Notice("Highlight a GPU that runs a job, or select a job in the jobs view", timeout=5)
        node, g = gpu
        jobs = jobs_on_gpu(records, node.name, g.index)
        return jobs or Notice(f"No job of this queue runs on {node.name} GPU {g.index}", timeout=5)

    @staticmethod
    def which_to_cancel(jobs: Sequence[JobRecord], gpu: tuple[NodeSnapshot, GpuSnapshot]) -> Choice:
        node, g = gpu
        title = f"{len(jobs)} jobs run on {node.name} GPU {g.index}: which one to cancel?"
        return Choice(title, tuple((str(r.id), job_label(r)) for r in jobs))

    @staticmethod
    def confirm_cancel(rec: JobRecord) -> Confirm:
        body = (*job_label(rec), "\n\n", stop_text(rec))
        return Confirm(f"Cancel job {rec.id} ({rec.display_name})?", body, yes="Cancel job", no="No")

    @staticmethod
    def cancelled(rec: JobRecord) -> Notice:
        what = "cancelled" if rec.state == CANCELLED else "is being stopped"
        return Notice(f"job {rec.id} {what}", timeout=5)

    @staticmethod
    def need_selection(verb: str) -> Notice:
        return Notice(f"Select the job to {verb} in the jobs view (j)", timeout=5)

    @staticmethod
    def confirm_requeue(rec: JobRecord) -> Confirm | None:
        """A running job is stopped to be queued again: asked first; a finished one just goes back."""
        if not rec.running:
            return None
        body = (*job_label(rec), "\n\nIt is stopped now and queued again.")
        return Confirm(f"Requeue running job {rec.id}?", body, yes="Requeue")

    @staticmethod
    def requeued(rec: JobRecord) -> Notice:
        return Notice(f"job {rec.id} " + ("is being requeued" if rec.running else "is queued again"), timeout=5)

    @staticmethod
    def ask_priority(rec: JobRecord) -> Notice | Prompt:
        if not rec.pending:
            return Notice(f"job {rec.id} is {rec.state.lower()}: only a pending job's priority can change")
        label = "Higher starts first among jobs that fit; 0 is the lowest."
        return Prompt(f"Priority of job {rec.id} ({rec.display_name})", label, str(rec.priority), check_priority)

    @staticmethod
    def prioritised(rec: JobRecord) -> Notice:
        return Notice(f"job {rec.id} now has priority {rec.priority}", timeout=5)

    @staticmethod
    def submitted(rec: JobRecord, jobs_view_shown: bool) -> Notice:
        hint = "" if jobs_view_shown else "; j shows the jobs view"
        return Notice(f"job {rec.id} ({rec.display_name}) submitted: {rec.request.describe()}{hint}", timeout=6)
