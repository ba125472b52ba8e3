"""The gputui Textual app and ``create_app``, the one factory shared by the CLI and the tests.

The app owns every state change: a thread worker polls the source and posts the snapshot, the
handler pushes it down into the widgets, and the next poll is scheduled only when the last one
finished, so a slow source never stacks polls.
"""

from __future__ import annotations

import threading
import time

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.theme import Theme
from textual.timer import Timer
from textual.widgets import Footer, Header
from textual.worker import Worker, WorkerState

from gputui.core.errors import GputuiError
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.resources import themes_dir
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource
from gputui.ui.actions import DEFAULT_ACTIONS, ActionRegistry, ActionSpec
from gputui.ui.commands import ActionCommands
from gputui.ui.detail import DetailPane
from gputui.ui.event_log import EventLog
from gputui.ui.help_screen import HelpScreen
from gputui.ui.messages import PollFailed, SnapshotPolled
from gputui.ui.overview import OverviewTable
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.replay_bar import ReplayBar
from gputui.ui.replay_control import ReplayControls
from gputui.ui.themes import THEMES, next_theme, resolve_theme

MIN_REPLAY_INTERVAL = 0.1  # seconds between polls while playing fast: at most 10 redraws a second


class GputuiApp(ReplayControls, App[None]):
    """The dashboard: cluster overview, detail of the highlighted GPU, and the replay bar for recordings."""

    CSS_PATH = str(themes_dir() / "app.tcss")
    TITLE = "gputui"
    COMMANDS = App.COMMANDS | {ActionCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    def __init__(
        self,
        source: Source,
        *,
        readonly: bool = False,
        theme: str | None = None,
        notice: str | None = None,
        poll_interval: float = 1.0,
        actions: ActionRegistry | None = None,
    ) -> None:
        theme_name = resolve_theme(theme)
        super().__init__()
        for t in THEMES.values():
            self.register_theme(t)
        self.theme = theme_name
        self.source = source
        self.replay: ReplaySource | None = source if isinstance(source, ReplaySource) else None
        self.readonly = readonly
        self.notice = notice
        self.poll_interval = max(0.05, poll_interval)
        self.registry = actions or DEFAULT_ACTIONS
        self._bind_registry()
        self.snapshot: ClusterSnapshot | None = None
        self.palette: Palette = PLAIN
        self._gpus: dict[str, tuple[NodeSnapshot, GpuSnapshot]] = {}
        self._source_lock = threading.Lock()  # the poll thread and replay controls share the source
        self._generation = 0
        self._poll_timer: Timer | None = None
        self._polling = False
        self._last_time: float | None = None
        self.last_apply_seconds = 0.0
        self.poll_count = 0

    # -- actions registry ----------------------------------------------------------------------
    def _bind_registry(self) -> None:
        existing = self._bindings.key_to_bindings
        for spec in self.registry:
            for i, key in enumerate(spec.keys):
                if any(b.action == spec.action for b in existing.get(key, ())):
                    continue  # Textual binds it already (ctrl+p)
                existing.setdefault(key, []).append(
                    Binding(
                        key,
                        spec.action,
                        spec.title,
                        show=spec.footer and i == 0,
                        key_display=spec.key_display if i == 0 else None,
                        id=f"gputui.{spec.name}",
                    )
                )

    def available_actions(self) -> list[ActionSpec]:
        return self.registry.available(readonly=self.readonly, replay=self.replay is not None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = self.registry.allows_name(action, readonly=self.readonly, replay=self.replay is not None)
        return True if allowed is None else allowed

    # -- layout --------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="▣")
        yield OverviewTable(id="overview")
        yield DetailPane(id="detail")
        if self.replay is not None:
            yield EventLog(id="events")
            yield ReplayBar(id="replay")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.source.description
        self._set_palette()
        self.theme_changed_signal.subscribe(self, self._on_theme_changed, immediate=True)
        self.query_one(OverviewTable).focus()
        if self.notice:
            self.notify(self.notice, title="gputui", timeout=10)
        self._start_poll()

    def _set_palette(self) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())
        self.query_one(OverviewTable).set_palette(self.palette)
        self.query_one(DetailPane).set_palette(self.palette)
        if self.replay is not None:
            self.query_one(EventLog).set_palette(self.palette)
            self.query_one(ReplayBar).status.palette = self.palette
            self._show_replay_state()

    def _on_theme_changed(self, theme: Theme) -> None:
        self._set_palette()

    # -- polling -------------------------------------------------------------------------------
    def _start_poll(self) -> None:
        self._poll_timer = None
        if self._polling:
            return  # the poll in flight schedules the next one when it ends
        self._polling = True
        self._poll_worker()

    @work(thread=True, exclusive=True, exit_on_error=False, group="poll")
    def _poll_worker(self) -> None:
        with self._source_lock:
            generation = self._generation
            try:
                snapshot = self.source.poll()
            except GputuiError as e:
                self.post_message(PollFailed(str(e), generation))
                return
        self.post_message(SnapshotPolled(snapshot, generation))

    def _next_interval(self) -> float | None:
        """Seconds to the next poll; None for a paused replay, whose frame changes only by the user's keys."""
        if self.replay is not None:
            if not self.replay.playing:
                return None
            return max(MIN_REPLAY_INTERVAL, min(self.poll_interval, 0.5 / self.replay.speed))
        return self.poll_interval

    def schedule_poll(self, delay: float | None = None) -> None:
        """Poll again after ``delay`` (default: the interval for the current state), replacing a pending timer."""
        if self._poll_timer is not None:
            self._poll_timer.stop()
            self._poll_timer = None
        if delay is None:
            delay = self._next_interval()
            if delay is None:
                return
        # Textual timers need a delay above zero.
        self._poll_timer = self.set_timer(max(0.001, delay), self._start_poll)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "poll" or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            return
        self._polling = False
        if event.state == WorkerState.ERROR:
            self.notify(f"polling failed: {event.worker.error!r}", severity="error", timeout=8)
        if self._poll_timer is None:
            self.schedule_poll()

    def on_snapshot_polled(self, message: SnapshotPolled) -> None:
        self.poll_count += 1
        if message.generation == self._generation:
            self.apply_snapshot(message.snapshot)

    def on_poll_failed(self, message: PollFailed) -> None:
        self.notify(message.error, severity="error", timeout=8)

    # -- applying a snapshot -------------------------------------------------------------------
    def apply_snapshot(self, snap: ClusterSnapshot) -> None:
        """Push a snapshot into every widget; this is the only place the view changes."""
        started = time.perf_counter()
        previous = self._last_time
        self.snapshot = snap
        overview = self.query_one(OverviewTable)
        overview.show(snap)
        self._gpus = overview.gpus_by_key()
        self._show_detail(overview.cursor_key)
        if self.replay is not None:
            self._show_replay_state()
            self._show_events(previous, snap.timestamp)
        self._last_time = snap.timestamp
        nodes = len(snap.nodes)
        self.sub_title = f"{self.source.description} · {snap.gpu_count} GPUs on {nodes} node{'s' if nodes != 1 else ''}"
        self.last_apply_seconds = time.perf_counter() - started

    def _show_detail(self, key: str | None) -> None:
        node, gpu = self._gpus.get(key, (None, None)) if key else (None, None)
        self.query_one(DetailPane).show(node, gpu)

    def on_row_table_row_highlighted(self, event: OverviewTable.RowHighlighted) -> None:
        if event.table.id == "overview":
            self._show_detail(event.key)

    def _show_events(self, previous: float | None, now: float) -> None:
        assert self.replay is not None
        log = self.query_one(EventLog)
        if previous is None:
            log.add(self.replay.events_until(now))
        elif now > previous:
            log.add(self.replay.events_between(previous, now))
        elif now < previous:
            log.mark(f"↶ back to {time.strftime('%H:%M:%S', time.gmtime(now))}")

    # -- app actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        display = {k: self.get_key_display(Binding(k, "")) for s in self.available_actions() for k in s.keys}
        groups = self.registry.groups(readonly=self.readonly, replay=self.replay is not None)
        note = "Read-only: actions that change something are hidden." if self.readonly else ""
        self.push_screen(HelpScreen(groups, display, note))

    def action_cycle_theme(self) -> None:
        self.theme = next_theme(self.theme)

    def action_set_theme(self, name: str) -> None:
        self.theme = resolve_theme(name)

    def action_toggle_detail(self) -> None:
        detail = self.query_one(DetailPane)
        detail.display = not detail.display


def create_app(
    source: Source,
    *,
    readonly: bool = False,
    theme: str | None = None,
    notice: str | None = None,
    poll_interval: float = 1.0,
) -> GputuiApp:
    """Build the dashboard for ``source``; raises GputuiError (e.g. an unknown theme) before anything starts."""
    return GputuiApp(source, readonly=readonly, theme=theme, notice=notice, poll_interval=poll_interval)


__all__ = ["GputuiApp", "create_app"]
