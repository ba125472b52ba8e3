"""A small Textual app that mounts the jobs, recording and MPS parts the way the dashboard does, for Pilot tests.

It polls only when asked (``request_poll``), so a test decides when a scheduling pass happens and waits for
the workers instead of sleeping.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Footer, Static

from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot, NodeSnapshot
from gputui.dashboard.actions import ActionRegistry
from gputui.dashboard.job_actions import JOB_ACTIONS
from gputui.dashboard.job_ticks import JobsTick
from gputui.dashboard.jobs import JobsController
from gputui.dashboard.mps import MpsController
from gputui.dashboard.session.controller import RecordingController
from gputui.dashboard.state import DashboardState
from gputui.jobs.service import JobService
from gputui.resources import themes_dir
from gputui.ui.dialog_actions import DIALOG, DialogActions
from gputui.ui.job_keys import JobKeys
from gputui.ui.mps_keys import MpsKeys
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.record_keys import RecordBadge, RecordKeys
from gputui.ui.themes import THEMES
from gputui.ui.widgets.jobs_view import JobsView

REGISTRY = ActionRegistry(JOB_ACTIONS)
SIZE = (160, 50)


class Polled(Message):
    def __init__(self, snapshot: ClusterSnapshot, tick: JobsTick | None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.tick = tick


class GpuStandIn(Static, can_focus=True):
    """Where focus is when the user works on the GPUs (the overview / GPU detail of the dashboard)."""


class JobsTestApp(App[None], DialogActions):
    CSS_PATH = [str(themes_dir() / "app.tcss"), str(themes_dir() / "jobs.tcss")]

    def __init__(
        self,
        source: Any,
        service: JobService | None,
        *,
        readonly: bool = False,
        replay: bool = False,
        record: str | None = None,
        jobs_note: str | None = None,
    ) -> None:
        super().__init__()
        for t in THEMES.values():
            self.register_theme(t)
        self.theme = "gputui-dark"
        self.source = source
        self.readonly = readonly
        self.replay = object() if replay else None
        self.record_path = record
        self.snapshot: ClusterSnapshot | None = None
        self.gpu_key: tuple[str, int] | None = None  # the "highlighted" GPU: (node, index)
        self.events_seen: list[Event] = []
        self.notified: list[str] = []  # every notification, also those that have timed out
        self.polls_done = 0
        self.palette: Palette = PLAIN
        # The dashboard's parts, wired as the dashboard wires them.
        self.jobs = JobsController(service, jobs_note)
        self.state = DashboardState("test")
        self.job_keys = JobKeys(
            self,
            self.jobs,
            self.state,
            palette=lambda: self.palette,
            highlighted=self.highlighted_gpu,
            request_poll=self.request_poll,
            show_events=self.events_seen.extend,
        )
        description = getattr(source, "description", "gputui")
        self.recording = RecordingController(description, replay=replay)
        self.record_keys = RecordKeys(
            self, self.recording, palette=lambda: self.palette, on_screen=lambda: self.snapshot
        )
        self.mps = MpsController(replay=replay)
        self.mps_keys = MpsKeys(self, self.mps, highlighted=self.highlighted_gpu, request_poll=self.request_poll)
        for spec in REGISTRY:
            for key in spec.keys:
                self._bindings.key_to_bindings.setdefault(key, []).append(Binding(key, spec.action, spec.title))

    def notify(self, message: str, **kw: Any) -> None:  # type: ignore[override]
        self.notified.append(str(message))
        super().notify(message, **kw)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = REGISTRY.allows_name(action, readonly=self.readonly, replay=self.replay is not None)
        return True if allowed is None else allowed

    def compose(self) -> ComposeResult:
        yield RecordBadge(id="record-badge")
        yield GpuStandIn("GPU detail", id="gpu")
        yield JobsView(self.jobs, id="jobs")
        yield Footer()

    def on_mount(self) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())
        self.query_one(JobsView).set_palette(self.palette)
        self.query_one(JobsView).table.focus()
        self.job_keys.show_jobs()
        if self.record_path is not None:
            self.record_keys.start(self.record_path)

    def on_unmount(self) -> None:
        self.recording.close_now()

    # -- the actions, as the dashboard runs them ---------------------------------------------------
    def action_submit_job(self) -> None:
        self.run_worker(self.job_keys.submit(), group=DIALOG)

    def close_jobs(self) -> None:
        self.jobs.close()

    # -- hooks ---------------------------------------------------------------------------------
    def highlighted_gpu(self) -> tuple[NodeSnapshot, GpuSnapshot] | None:
        if self.snapshot is None or self.gpu_key is None:
            return None
        node = self.snapshot.node(self.gpu_key[0])
        return node, next(g for g in node.gpus if g.index == self.gpu_key[1])

    def request_poll(self) -> None:
        self._poll()

    @work(thread=True, group="poll")
    def _poll(self) -> None:
        snap = self.source.poll()
        self.post_message(Polled(snap, self.jobs.tick(snap)))

    def on_polled(self, message: Polled) -> None:
        tick = message.tick
        self.snapshot = tick.snapshot if tick is not None else message.snapshot
        if tick is not None:
            self.job_keys.apply_tick(tick)
        self.record_keys.record(self.snapshot, tick.events if tick is not None else ())
        self.polls_done += 1


async def settle(app: App[Any], pilot: Any) -> None:
    """Let every worker finish (but those waiting for a dialog's answer) and the messages they posted be handled
    (three times: answers may start more work)."""
    for _ in range(3):
        working = [w for w in app.workers if w.group != DIALOG]  # not those waiting for an answer
        if working:
            await app.workers.wait_for_complete(working)
        await pilot.pause()


async def poll(app: JobsTestApp, pilot: Any) -> None:
    app.request_poll()
    await settle(app, pilot)
