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
from gputui.jobs.service import JobService
from gputui.resources import themes_dir
from gputui.ui.job_controls import JobControls
from gputui.ui.jobs_view import JobsView
from gputui.ui.mps_controls import MpsControls
from gputui.ui.palette import Palette
from gputui.ui.record_controls import RecordBadge, RecordControls
from gputui.ui.themes import THEMES

REGISTRY = ActionRegistry(JOB_ACTIONS)
SIZE = (160, 50)


class Polled(Message):
    def __init__(self, snapshot: ClusterSnapshot, tick: JobsTick | None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.tick = tick


class GpuStandIn(Static, can_focus=True):
    """Where focus is when the user works on the GPUs (the overview / GPU detail of the dashboard)."""


class JobsTestApp(JobControls, RecordControls, MpsControls, App[None]):
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
        self.jobs_service = service
        self.jobs_note = jobs_note
        self.readonly = readonly
        self.replay = object() if replay else None
        self.record_path = record
        self.snapshot: ClusterSnapshot | None = None
        self.gpu_key: tuple[str, int] | None = None  # the "highlighted" GPU: (node, index)
        self.events_seen: list[Event] = []
        self.notified: list[str] = []  # every notification, also those that have timed out
        self.polls_done = 0
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
        yield JobsView(id="jobs")
        yield Footer()

    def on_mount(self) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())
        self.query_one(JobsView).set_palette(self.palette)
        self.query_one(JobsView).table.focus()
        self.show_jobs()
        if self.record_path is not None:
            self.start_recording(self.record_path)

    def on_unmount(self) -> None:
        self.close_recording_now()

    # -- hooks ---------------------------------------------------------------------------------
    def highlighted_gpu(self) -> tuple[NodeSnapshot, GpuSnapshot] | None:
        if self.snapshot is None or self.gpu_key is None:
            return None
        node = self.snapshot.node(self.gpu_key[0])
        return node, next(g for g in node.gpus if g.index == self.gpu_key[1])

    def request_poll(self) -> None:
        self._poll()

    def show_job_events(self, events: Any) -> None:
        self.events_seen.extend(events)

    @work(thread=True, group="poll")
    def _poll(self) -> None:
        snap = self.source.poll()
        self.post_message(Polled(snap, self.jobs_tick(snap)))

    def on_polled(self, message: Polled) -> None:
        tick = message.tick
        self.snapshot = tick.snapshot if tick is not None else message.snapshot
        if tick is not None:
            self.apply_jobs_tick(tick)
        self.record_applied(self.snapshot, tick.events if tick is not None else ())
        self.polls_done += 1


async def settle(app: App[Any], pilot: Any) -> None:
    """Let every worker finish and the messages they posted be handled (twice: answers may start more work)."""
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()


async def poll(app: JobsTestApp, pilot: Any) -> None:
    app.request_poll()
    await settle(app, pilot)
