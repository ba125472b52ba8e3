"""The job keys of the shell (submit, cancel, requeue, priority) and the jobs view kept up to date.

Each action reads top to bottom: ask the controller, show its question in a dialog and wait for the answer,
run the change in a thread, show the outcome. The service is never called on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.css.query import NoMatches

from gputui.core.errors import GputuiError
from gputui.core.model import Event, GpuSnapshot, NodeSnapshot
from gputui.dashboard.jobs import JobChange, JobsController
from gputui.dashboard.outcomes import Notice
from gputui.dashboard.state import DashboardState
from gputui.ui.dialogs.outcome_dialogs import ask, say
from gputui.ui.palette import Palette

if TYPE_CHECKING:
    from gputui.dashboard.job_ticks import JobsTick
    from gputui.jobs.backend import JobBackend
    from gputui.jobs.records import JobRecord
    from gputui.ui.widgets.jobs_view import JobsView


class JobKeys:
    """The job actions of ``app`` over ``jobs`` and ``state``; ``highlighted`` is the GPU the user has selected,
    ``request_poll`` ticks the queue at once, ``show_events`` writes job events where the user sees them."""

    def __init__(
        self,
        app: App[Any],
        jobs: JobsController,
        state: DashboardState,
        *,
        palette: Callable[[], Palette],
        highlighted: Callable[[], tuple[NodeSnapshot, GpuSnapshot] | None],
        request_poll: Callable[[], object],
        show_events: Callable[[Sequence[Event]], object],
    ) -> None:
        self.app = app
        self.highlighted = highlighted
        self.jobs = jobs
        self.state = state
        self.palette = palette
        self.request_poll = request_poll
        self.show_events = show_events

    # -- the jobs view ---------------------------------------------------------------------------
    def jobs_view(self) -> JobsView | None:
        """The jobs view, on whichever screen of the stack holds it (a dialog may be on top)."""
        from gputui.ui.widgets.jobs_view import JobsView

        for screen in reversed(self.app.screen_stack):
            try:
                return screen.query_one(JobsView)
            except NoMatches:
                continue
        return None

    def jobs_view_shown(self) -> bool:
        view = self.jobs_view()
        return view is not None and view.display

    def show_jobs(self, select: int | None = None) -> None:
        view = self.jobs_view()
        if view is None or not view.display:
            return  # a hidden view is brought up to date when it is shown again
        view.note = self.jobs.status() or None
        view.show_jobs(self.state.jobs_records, self.state.jobs_now)
        if select is not None:
            view.select_job(select)

    def opened(self, service: JobBackend | None, note: str | None) -> None:
        say(self.app, self.jobs.opened(service, note))
        self.show_jobs()
        self.request_poll()

    def apply_tick(self, tick: JobsTick) -> None:
        """On the event loop, after the poll's snapshot is applied: the view, events and store problems."""
        say(self.app, self.jobs.tick_notice(tick))
        if tick.records is not None:
            self.state.set_records(tick.records)
        self.state.jobs_now = tick.now
        self.show_jobs()
        if tick.events:
            self.show_events(tick.events)

    def _changed(self, change: JobChange) -> None:
        self.state.set_records(change.records, change.now)
        self.show_jobs(select=change.record.id)

    def _change(self, call: Callable[[JobBackend], JobRecord], done: Callable[[JobRecord], Notice]) -> None:
        """Run a change in a thread, then show the job list read after it and poll, so its effect shows at once."""
        self.app.run_worker(self._run_change(call, done), group="jobs")

    async def _run_change(self, call: Callable[[JobBackend], JobRecord], done: Callable[[JobRecord], Notice]) -> None:
        try:
            change = await asyncio.to_thread(self.jobs.change, call)
        except GputuiError as e:
            say(self.app, Notice(str(e), "error", 8))
            return
        self._changed(change)
        say(self.app, done(change.record))
        self.request_poll()

    # -- actions (each runs as a worker: it waits for its dialogs) ---------------------------------
    async def submit(self) -> None:
        if (problem := self.jobs.unavailable()) is not None:
            say(self.app, problem)
            return
        from gputui.ui.dialogs.submit_dialog import SubmitDialog

        change: JobChange | None = await self.app.push_screen_wait(SubmitDialog(self.jobs, self.palette()))
        if change is None:
            return
        self._changed(change)
        say(self.app, self.jobs.submitted(change.record, self.jobs_view_shown()))
        self.request_poll()

    async def cancel(self) -> None:
        """Cancel the job selected in the jobs view (when it has focus), else the job on the highlighted GPU."""
        if (problem := self.jobs.unavailable()) is not None:
            say(self.app, problem)
            return
        view = self.jobs_view()
        in_view = view is not None and view.display and view.has_focus_within
        gpu = self.highlighted()
        selected = view.selected_job if view is not None and in_view else None
        hit = self.jobs.to_cancel(self.state.jobs_records, selected, in_view, gpu)
        if isinstance(hit, Notice):
            say(self.app, hit)
            return
        rec = hit[0]
        if len(hit) > 1 and gpu is not None:
            key = await ask(self.app, self.jobs.which_to_cancel(hit, gpu))
            if key is None:
                return
            rec = next(r for r in hit if str(r.id) == key)
        if await ask(self.app, self.jobs.confirm_cancel(rec)) and self.jobs.service is not None:
            self._change(lambda s: s.cancel(rec.id), self.jobs.cancelled)

    def _selected(self, verb: str) -> JobRecord | None:
        view = self.jobs_view()
        rec = view.selected_job if view is not None and view.display else None
        if rec is None:
            say(self.app, self.jobs.need_selection(verb))
        return rec

    async def requeue(self) -> None:
        if (problem := self.jobs.unavailable()) is not None:
            say(self.app, problem)
            return
        if (rec := self._selected("requeue")) is None:
            return
        question = self.jobs.confirm_requeue(rec)
        if question is None or await ask(self.app, question):
            self._change(lambda s: s.requeue(rec.id), self.jobs.requeued)

    async def priority(self) -> None:
        if (problem := self.jobs.unavailable()) is not None:
            say(self.app, problem)
            return
        if (rec := self._selected("change")) is None:
            return
        question = self.jobs.ask_priority(rec)
        if isinstance(question, Notice):
            say(self.app, question)
            return
        text = await ask(self.app, question)
        if text is not None:
            value = int(text.strip())
            self._change(lambda s: s.set_priority(rec.id, value), self.jobs.prioritised)
