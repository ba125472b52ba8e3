"""Job actions of the app (submit, cancel, requeue, priority) and the jobs view's data, mixed into the app.

Every job-service call runs in a thread worker that only posts a message; the handlers here, on the event
loop, change what is shown. The app supplies three hooks: the highlighted GPU, a way to poll (and so tick)
at once, and where job events are written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import work
from textual.css.query import NoMatches

from gputui.core.errors import GputuiError
from gputui.core.model import Event, GpuSnapshot, NodeSnapshot
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.job_states import CANCELLED
from gputui.ui.messages import JobsOpened
from gputui.ui.palette import PLAIN, Palette

if TYPE_CHECKING:
    from textual.app import App

    from gputui.dashboard.job_ticks import JobsTick
    from gputui.jobs.backend import JobBackend
    from gputui.jobs.records import JobRecord
    from gputui.ui.jobs_view import JobsView
    from gputui.ui.messages import JobCallDone
    from gputui.ui.submit_dialog import SubmitDialog

# The job service, the jobs view and the dialogs load on first use: the dashboard's first frame needs none.

MAX_PRIORITY = 2**32
Then = Callable[[Any, GputuiError | None], None]


def jobs_on_gpu(records: Sequence[JobRecord], node: str, index: int) -> list[JobRecord]:
    """Running jobs holding GPU ``index`` of ``node`` (whole, a MIG instance of it or an MPS share), by id."""
    out = [
        r
        for r in records
        if r.running
        and r.allocation is not None
        and any(ng.node == node and any(g.index == index for g in ng.gpus) for ng in r.allocation.nodes)
    ]
    return sorted(out, key=lambda r: r.id)


def holders_by_gpu(records: Sequence[JobRecord]) -> dict[str, str]:
    """'node/index' -> 'job 42 train' for every GPU a running job holds (the overview's holder column and the
    filter use it); a MIG instance or an MPS share is named after the job, and jobs sharing a GPU are joined."""
    out: dict[str, list[str]] = {}
    for rec in sorted(records, key=lambda r: r.id):
        if not rec.running or rec.allocation is None:
            continue
        base = f"job {rec.id}" + (f" {rec.name}" if rec.name else "")
        for ng in rec.allocation.nodes:
            for g in ng.gpus:
                share = f" ({g.mig.profile})" if g.mig is not None else ""
                share = f" (MPS {g.mps_percent}%)" if g.mps_percent is not None else share
                out.setdefault(f"{ng.node}/{g.index}", []).append(base + share)
    return {key: ", ".join(labels) for key, labels in out.items()}


def check_priority(text: str) -> str | None:
    text = text.strip()
    if not text.isdigit():
        return "a whole number from 0 (lowest) up"
    return None if int(text) <= MAX_PRIORITY else f"at most {MAX_PRIORITY}"


def job_label(rec: JobRecord) -> Text:
    where = rec.allocation_text or rec.request.describe()
    return Text.assemble((f"{rec.id:>6}  ", "bold"), f"{rec.display_name}  ", (f"{rec.user}  {where}", "dim"))


def _stop_text(rec: JobRecord) -> str:
    if rec.pending:
        return "It leaves the queue."
    if rec.runner == "sim":
        return "The simulated job ends at the next scheduling pass."
    if rec.runner == "slurm":
        return "Slurm stops it (scancel): SIGTERM, then SIGKILL after the cluster's KillWait."
    return "Its processes get SIGTERM, then SIGKILL after the grace period."


class JobControls:
    """Mixed into the app; with ``jobs_service`` None (no store), every job action says why it is unavailable.

    With ``jobs_opener`` set, the service opens in a thread after the first frame (``open_jobs_later``).
    """

    jobs_service: JobBackend | None = None
    jobs_note: str | None = None  # why jobs are unavailable, shown in the view and in notifications
    jobs_opener: Callable[[], JobBackend] | None = None
    _jobs_opening: threading.Thread | None = None
    _jobs_opened: JobBackend | None = None  # set by the opening thread, so that close_jobs finds it in any case
    jobs_records: tuple[JobRecord, ...] = ()
    jobs_now: float = 0.0
    palette: Palette = PLAIN
    _jobs_error: str | None = None

    @property
    def _japp(self) -> App[Any]:
        return cast("App[Any]", self)

    # -- hooks the app overrides ---------------------------------------------------------------
    def highlighted_gpu(self) -> tuple[NodeSnapshot, GpuSnapshot] | None:
        """The GPU the detail pane shows."""
        return None

    def request_poll(self) -> None:
        """Poll (and so tick the queue) as soon as possible, also while a replay is paused."""

    def show_job_events(self, events: Sequence[Event]) -> None:
        """Write job events where the user sees them (the event log)."""

    # -- opening and closing the service --------------------------------------------------------
    def open_jobs_later(self) -> None:
        """Open the job service with ``jobs_opener`` in a thread; the app polls (and so ticks) once it is open."""
        opener = self.jobs_opener
        if opener is None or self._jobs_opening is not None:
            return
        self._jobs_opening = threading.Thread(target=self._open_jobs, args=(opener,), name="gputui-jobs", daemon=True)
        self._jobs_opening.start()

    def _open_jobs(self, opener: Callable[[], JobBackend]) -> None:
        try:
            service = opener()
        except GputuiError as e:
            self._japp.post_message(JobsOpened(None, f"jobs are unavailable: {e}"))
            return
        except Exception as e:  # a bug: said, and the dashboard runs on without jobs
            self._japp.post_message(JobsOpened(None, f"jobs are unavailable: opening failed: {e!r}"))
            return
        self._jobs_opened = service
        self._japp.post_message(JobsOpened(service, None))

    def on_jobs_opened(self, message: JobsOpened) -> None:
        self.jobs_opener = None
        if message.service is None:
            self.jobs_note = message.note
            self._japp.notify(message.note or "jobs are unavailable", severity="warning", timeout=8)
        else:
            self.jobs_service = message.service
        self.show_jobs()
        self.request_poll()

    def close_jobs(self, timeout: float = 3.0) -> None:
        """After the app has run: wait for a service still opening, then close the service. (One that takes longer,
        held up by a locked store, ends with the process; the next gputui takes over its lease as a dead one's.)"""
        if self._jobs_opening is not None:
            self._jobs_opening.join(timeout)
        service = self.jobs_service or self._jobs_opened
        if service is not None:
            service.close()

    # -- feeding the view ----------------------------------------------------------------------
    def jobs_view(self) -> JobsView | None:
        """The jobs view, on whichever screen of the stack holds it (a dialog may be on top)."""
        from gputui.ui.jobs_view import JobsView

        for screen in reversed(self._japp.screen_stack):
            try:
                return screen.query_one(JobsView)
            except NoMatches:
                continue
        return None

    def jobs_tick(self, snapshot: Any) -> JobsTick | None:
        """Called by the poll worker (a thread) with each snapshot; None without a job service."""
        service = self.jobs_service
        if service is None:
            return None
        from gputui.dashboard.job_ticks import tick_jobs

        return tick_jobs(service, snapshot)

    def apply_jobs_tick(self, tick: JobsTick) -> None:
        """On the event loop, after the poll's snapshot is applied: the view, events and store problems."""
        if tick.error != self._jobs_error:
            self._jobs_error = tick.error
            if tick.error is not None:
                self._japp.notify(f"jobs: {tick.error}", severity="warning", timeout=8)
        if tick.records is not None:
            self._set_records(tick.records)
        self.jobs_now = tick.now
        self.show_jobs()
        if tick.events:
            self.show_job_events(tick.events)

    def show_jobs(self, select: int | None = None) -> None:
        view = self.jobs_view()
        if view is None or not view.display:
            return  # a hidden view is brought up to date when it is shown again
        view.note = self.jobs_note
        view.show_jobs(self.jobs_records, self.jobs_now)
        if select is not None:
            view.select_job(select)

    def _set_records(self, records: tuple[JobRecord, ...]) -> None:
        self.jobs_records = records
        holders = holders_by_gpu(records)
        app = cast("Any", self)
        if holders != getattr(app, "jobs_by_gpu", None):
            app.jobs_by_gpu = holders  # a new object: the overview notices it and redraws the holder column

    def on_jobs_view_detail_wanted(self, message: JobsView.DetailWanted) -> None:
        view, service, job_id = self.jobs_view(), self.jobs_service, message.job_id
        if view is None:
            return
        if service is None or job_id is None:
            view.show_detail(None)
            return

        def shown(detail: Any, error: GputuiError | None) -> None:
            if view.is_attached:
                view.show_detail(detail if error is None else None)

        self._fetch_detail(lambda: service.get(job_id), shown)

    # -- thread workers ------------------------------------------------------------------------
    def _call(self, call: Callable[[], Any], then: Then) -> None:
        """Run a job-service call (in a worker thread) and post its outcome; a bug still raises."""
        from gputui.ui.messages import JobCallDone

        try:
            result = call()
        except GputuiError as e:
            self._japp.post_message(JobCallDone(then, None, e))
            return
        self._japp.post_message(JobCallDone(then, result, None))

    @work(thread=True, group="jobs")
    def run_job_call(self, call: Callable[[], Any], then: Then) -> None:
        """Run a job-service call off the event loop; ``then(result, error)`` runs on it afterwards."""
        self._call(call, then)

    @work(thread=True, group="jobs-detail", exclusive=True)
    def _fetch_detail(self, call: Callable[[], Any], then: Then) -> None:
        self._call(call, then)

    @work(thread=True, group="jobs-preview", exclusive=True)
    def _fetch_preview(self, call: Callable[[], Any], then: Then) -> None:
        self._call(call, then)

    def on_job_call_done(self, message: JobCallDone) -> None:
        message.then(message.result, message.error)

    def _service(self) -> JobBackend | None:
        if self.jobs_service is None and self.jobs_opener is not None:
            self._japp.notify("The job queue is still opening; try again in a moment", timeout=4)
        elif self.jobs_service is None:
            self._japp.notify(self.jobs_note or "jobs are not available here", severity="warning", timeout=6)
        return self.jobs_service

    def _changed(self, service: JobBackend, call: Callable[[], JobRecord], done: Callable[[JobRecord], None]) -> None:
        """Run a change, then read the job list again and poll, so the view shows its effect at once."""

        from gputui.dashboard.job_ticks import list_jobs

        def work() -> tuple[JobRecord, tuple[JobRecord, ...], float]:
            rec = call()
            return rec, list_jobs(service), service.now()

        def then(result: Any, error: GputuiError | None) -> None:
            if error is not None:
                self._japp.notify(str(error), severity="error", timeout=8)
                return
            rec, records, now = result
            self.jobs_records, self.jobs_now = records, now
            self.show_jobs(select=rec.id)
            done(rec)
            self.request_poll()

        self.run_job_call(work, then)

    # -- submit --------------------------------------------------------------------------------
    def action_submit_job(self) -> None:
        if self._service() is not None:
            from gputui.ui.submit_dialog import SubmitDialog

            self._japp.push_screen(SubmitDialog(self.palette))

    def on_submit_dialog_preview_wanted(self, message: SubmitDialog.PreviewWanted) -> None:
        service, dialog = self.jobs_service, message.dialog
        if service is None:
            return
        options, script = message.job.preview_args

        def shown(preview: Any, error: GputuiError | None) -> None:
            if dialog.is_attached:
                text = None if error is None else str(error)
                dialog.show_preview(message.serial, preview, text, request=isinstance(error, RequestError))

        self._fetch_preview(lambda: service.preview(options, script), shown)

    def on_submit_dialog_submitted(self, message: SubmitDialog.Submitted) -> None:
        service, dialog, job = self.jobs_service, message.dialog, message.job
        if service is None:
            return
        from gputui.dashboard.job_ticks import list_jobs

        def work() -> tuple[JobRecord, tuple[JobRecord, ...], float]:
            rec = service.submit(job.options, job.command, script=job.script)
            return rec, list_jobs(service), service.now()

        def then(result: Any, error: GputuiError | None) -> None:
            if error is not None:
                if dialog.is_attached:
                    dialog.submit_failed(str(error), request=isinstance(error, RequestError))
                return
            rec, records, now = result
            if dialog.is_attached:
                dialog.dismiss(rec)
            self.jobs_records, self.jobs_now = records, now
            self.show_jobs(select=rec.id)
            hint = "" if self.jobs_view_shown() else "; j shows the jobs view"
            self._japp.notify(f"job {rec.id} ({rec.display_name}) submitted: {rec.request.describe()}{hint}", timeout=6)
            self.request_poll()

        self.run_job_call(work, then)

    def jobs_view_shown(self) -> bool:
        view = self.jobs_view()
        return view is not None and view.display

    # -- cancel --------------------------------------------------------------------------------
    def action_cancel_job(self) -> None:
        """Cancel the job selected in the jobs view (when it has focus), else the job on the highlighted GPU."""
        if self._service() is None:
            return
        view = self.jobs_view()
        if view is not None and view.display and view.has_focus_within:
            rec = view.selected_job
            if rec is None:
                self._japp.notify("No job selected", timeout=4)
            elif rec.ended:
                self._japp.notify(f"job {rec.id} has already ended ({rec.state.lower()})", timeout=4)
            else:
                self.confirm_cancel(rec)
            return
        hit = self.highlighted_gpu()
        if hit is None:
            self._japp.notify("Highlight a GPU that runs a job, or select a job in the jobs view", timeout=5)
            return
        node, gpu = hit
        jobs = jobs_on_gpu(self.jobs_records, node.name, gpu.index)
        if not jobs:
            self._japp.notify(f"No job of this queue runs on {node.name} GPU {gpu.index}", timeout=5)
        elif len(jobs) == 1:
            self.confirm_cancel(jobs[0])
        else:
            by_id = {str(r.id): r for r in jobs}

            def chosen(key: str | None) -> None:
                if key is not None:
                    self.confirm_cancel(by_id[key])

            from gputui.ui.choice_dialog import ChoiceDialog

            title = f"{len(jobs)} jobs run on {node.name} GPU {gpu.index}: which one to cancel?"
            self._japp.push_screen(ChoiceDialog(title, [(k, job_label(r)) for k, r in by_id.items()]), chosen)

    def confirm_cancel(self, rec: JobRecord) -> None:
        from gputui.ui.confirm_dialog import ConfirmDialog

        body = Text.assemble(job_label(rec), "\n\n", _stop_text(rec))
        title = f"Cancel job {rec.id} ({rec.display_name})?"

        def answered(yes: bool | None) -> None:
            service = self.jobs_service
            if yes and service is not None:
                self._changed(service, lambda: service.cancel(rec.id), self._cancelled)

        self._japp.push_screen(ConfirmDialog(title, body, yes="Cancel job", no="No"), answered)

    def _cancelled(self, rec: JobRecord) -> None:
        what = "cancelled" if rec.state == CANCELLED else "is being stopped"
        self._japp.notify(f"job {rec.id} {what}", timeout=5)

    # -- requeue and priority ------------------------------------------------------------------
    def _selected(self, verb: str) -> JobRecord | None:
        view = self.jobs_view()
        rec = view.selected_job if view is not None and view.display else None
        if rec is None:
            self._japp.notify(f"Select the job to {verb} in the jobs view (j)", timeout=5)
        return rec

    def action_requeue_job(self) -> None:
        if self._service() is None or (rec := self._selected("requeue")) is None:
            return

        def go(yes: bool | None = True) -> None:
            service = self.jobs_service
            if yes and service is not None:
                self._changed(service, lambda: service.requeue(rec.id), self._requeued)

        if rec.running:
            from gputui.ui.confirm_dialog import ConfirmDialog

            body = Text.assemble(job_label(rec), "\n\nIt is stopped now and queued again.")
            self._japp.push_screen(ConfirmDialog(f"Requeue running job {rec.id}?", body, yes="Requeue"), go)
        else:
            go()

    def _requeued(self, rec: JobRecord) -> None:
        self._japp.notify(f"job {rec.id} " + ("is being requeued" if rec.running else "is queued again"), timeout=5)

    def action_job_priority(self) -> None:
        if self._service() is None or (rec := self._selected("change")) is None:
            return
        if not rec.pending:
            self._japp.notify(f"job {rec.id} is {rec.state.lower()}: only a pending job's priority can change")
            return

        def go(text: str | None) -> None:
            service = self.jobs_service
            if text is not None and service is not None:
                value = int(text.strip())
                self._changed(service, lambda: service.set_priority(rec.id, value), self._prioritised)

        from gputui.ui.prompt_dialog import PromptDialog

        label = "Higher starts first among jobs that fit; 0 is the lowest."
        prompt = PromptDialog(
            f"Priority of job {rec.id} ({rec.display_name})", label, str(rec.priority), check_priority
        )
        self._japp.push_screen(prompt, go)

    def _prioritised(self, rec: JobRecord) -> None:
        self._japp.notify(f"job {rec.id} now has priority {rec.priority}", timeout=5)
