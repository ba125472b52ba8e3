"""The gputui Textual app, the shell that draws the dashboard model (gputui.dashboard): the feed polls the
source on its thread, the one frame handler ``on_fed`` applies each result to the state and asks the view in
front to draw it, keys become controller calls. Views are Textual modes, built on first use."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cached_property, partial
from typing import TYPE_CHECKING

from textual.app import App
from textual.theme import Theme

from gputui.core.model import ClusterSnapshot, Event
from gputui.dashboard.actions import DEFAULT_ACTIONS, ActionRegistry, ActionSpec
from gputui.dashboard.feed import Feed, HistoryRead, PollFailed
from gputui.dashboard.job_actions import JOB_ACTIONS
from gputui.dashboard.jobs import JobsController
from gputui.dashboard.replay import ReplayController, ReplayState
from gputui.dashboard.session.controller import RecordingController
from gputui.dashboard.state import DashboardState
from gputui.resources import themes_dir
from gputui.sources.base import Source
from gputui.ui.app_start import EXIT_AFTER_FIRST_FRAME, StartingApp
from gputui.ui.collector import resume_collector
from gputui.ui.dialog_actions import DIALOG, DialogActions
from gputui.ui.dialogs.outcome_dialogs import notify_plain
from gputui.ui.job_keys import JobKeys
from gputui.ui.keymap import KeyMap
from gputui.ui.messages import Fed, JobsOpened
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.record_keys import RecordKeys
from gputui.ui.render.app_internals import (
    bind_registry,
    every_screen,
    quiet_driver_class,
    settle_heap,
    start_with_theme,
)
from gputui.ui.render.process_memory import TRIM_EVERY, TRIM_FIRST, release_free_memory
from gputui.ui.replay_keys import ReplayKeys
from gputui.ui.screens.modes import VIEW_SCREENS
from gputui.ui.screens.view_screen import VIEWS, ViewScreen
from gputui.ui.themes import THEMES, next_theme, resolve_theme
from gputui.ui.widgets.replay_bar import ReplayBar

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.driver import Driver

    from gputui.jobs.backend import JobBackend
    from gputui.ui.mps_keys import MpsKeys


def _commands() -> type[Provider]:
    from gputui.ui.commands import ActionCommands  # the palette's module loads only when it opens

    return ActionCommands


class GputuiApp(StartingApp, DialogActions):
    """The dashboard: overview, GPU detail, history and jobs views, plus the replay bar for recordings."""

    CSS_PATH = [str(themes_dir() / "app.tcss")]  # what the first frame draws; the rest: StartingApp.LATER_CSS
    TITLE = "gputui"
    COMMANDS = App.COMMANDS | {_commands}
    DEFAULT_MODE = "overview"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]

    def __init__(
        self,
        source: Source,
        *,
        readonly: bool = False,
        theme: str | None = None,
        notice: str | None = None,
        poll_interval: float = 1.0,
        actions: ActionRegistry | None = None,
        user_themes: list[Theme] | None = None,
        theme_problems: list[str] | None = None,
        jobs_service: JobBackend | None = None,
        jobs_note: str | None = None,
        record: str | None = None,
        jobs_opener: Callable[[], JobBackend] | None = None,
        hidden_columns: tuple[str, ...] = (),
        idle_radar: tuple[int | None, float | None] = (None, None),
    ) -> None:
        self.user_themes = list(user_themes or [])
        self.theme_names = [*THEMES, *(t.name for t in self.user_themes)]
        theme_name = resolve_theme(theme, self.theme_names)
        super().__init__()
        for t in [*THEMES.values(), *self.user_themes]:
            self.register_theme(t)
        start_with_theme(self, theme_name)
        for name, make in VIEW_SCREENS.items():
            self.add_mode(name, partial(make, self))
        self.source = source
        self.readonly = readonly
        self.notices = [n for n in [notice, *(theme_problems or [])] if n]
        self.record_path = record
        # The model (gputui.dashboard) and the parts of the shell that turn keys into its controllers' calls.
        self.jobs = JobsController(jobs_service, jobs_note, jobs_opener)
        self.hidden_columns = frozenset(hidden_columns)  # overview columns the config file leaves out
        self.feed = Feed(
            source,
            lambda result: self.post_message(Fed(result)),
            poll_interval=poll_interval,
            tick=self.jobs.tick,
            has_queue=lambda: self.jobs.service is not None,
        )
        self.replay = self.feed.replay
        self.state = DashboardState(source.description, self.replay, idle_radar)
        self.feed.prime_radar = self.state.primed_radar
        self.replay_controls = ReplayController(self.feed, self.state)
        self.replay_keys = ReplayKeys(self, self.replay_controls, self.feed, self.jobs, self.apply_snapshot)
        self.job_keys = JobKeys(
            self,
            self.jobs,
            self.state,
            palette=self.current_palette,
            highlighted=self.state.highlighted_gpu,
            request_poll=self.request_poll,
            show_events=self.show_job_events,
        )
        self.record_keys = RecordKeys(
            self,
            RecordingController(source.description, replay=self.replay is not None),
            palette=self.current_palette,
            on_screen=lambda: self.state.snapshot,
        )
        self.registry = (actions or DEFAULT_ACTIONS.extended(JOB_ACTIONS)).extended(
            ActionSpec(f"set_theme('{t.name}')", f"Theme: {t.name}", "View", help=f"Use your theme {t.name}")
            for t in self.user_themes
        )
        self.keymap = KeyMap(
            self.registry,
            readonly=readonly,
            replay=self.replay is not None,
            key_display=self.get_key_display,
            has_queue=lambda: self.jobs.service is not None or self.jobs.opener is not None,
        )
        bind_registry(self, self.registry)
        self.shows_events = self.replay is not None or self.jobs.service is not None or self.jobs.opener is not None
        self.palette: Palette = PLAIN
        self._palette_theme: str | None = None

    def _make_mps_keys(self) -> MpsKeys:
        """The MPS key's control, made (and its modules loaded) when first used: the first frame needs none of it."""
        from gputui.dashboard.mps import MpsController
        from gputui.ui.mps_keys import MpsKeys

        return MpsKeys(
            self,
            MpsController(replay=self.replay is not None),
            highlighted=self.state.highlighted_gpu,
            request_poll=self.request_poll,
        )

    if not TYPE_CHECKING:  # typed as DialogActions' attribute
        mps_keys = cached_property(_make_mps_keys)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux one whose input thread sleeps until input comes (Textual's
        own wakes ten times a second, a fifth of the dashboard's idle CPU). Falls back to Textual's driver if a
        Textual release moved the internals it builds on."""
        return quiet_driver_class(super().get_driver_class())

    # -- actions registry ----------------------------------------------------------------------
    def available_actions(self) -> list[ActionSpec]:
        return self.keymap.available()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = self.keymap.allows(action)
        if allowed and action in self.keymap.input_openers and not self._may_open_input():
            return False  # the key is text for the box that has the focus, or a dialog is open
        return True if allowed is None else allowed

    def _may_open_input(self) -> bool:
        from textual.widgets import Input

        return isinstance(self.screen, ViewScreen) and not isinstance(self.focused, Input)

    def current_palette(self) -> Palette:
        """The cell colours of the current theme (worked out once per theme)."""
        if self._palette_theme != self.theme:
            self.palette = Palette.from_variables(self.get_css_variables())
            self._palette_theme = self.theme
        return self.palette

    def on_mount(self) -> None:
        self.current_palette()
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        for notice in self.notices:
            notify_plain(self, notice, title="gputui", severity="warning" if "theme file" in notice else "information")
        if self.record_path is not None:
            self.record_keys.start(self.record_path)
        self.set_timer(10.0, resume_collector)  # at the latest, should neither a frame nor an error ever come

    def on_unmount(self) -> None:
        self.feed.stop()
        self.record_keys.controller.close_now()  # the file always gets its index

    def action_toggle_jobs(self) -> None:
        self.action_view("jobs" if self.current_mode != "jobs" else "overview")

    def first_frame_drawn(self) -> None:
        """Runs after the paint of the first frame (a callback after refresh): the work that could wait for it."""
        drawn = time.monotonic()
        self.call_later(self.read_later_css)
        self.open_jobs_later()
        if self.replay is not None and self.replay.time > self.replay.start_time:
            self.replay_keys.refill()  # opened part-way (at the queue's clock): what came before, as after a jump
        if self.exits_for_bench(drawn):
            return
        resume_collector()
        if not self.is_headless:
            settle_heap()

    def _on_theme_changed(self, theme: Theme) -> None:
        self.current_palette()
        for screen in every_screen(self):
            if isinstance(screen, ViewScreen) and screen.is_mounted:
                screen.apply_palette()
        self.refresh_view()

    # -- the state the views draw ----------------------------------------------------------------
    @property
    def view_screen(self) -> ViewScreen | None:
        """The view of the current mode (under any dialog open over it); None while it is being built."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, ViewScreen):
                return screen if screen.is_mounted else None
        return None

    def refresh_view(self) -> None:
        view = self.view_screen
        if view is not None and view.is_mounted:
            view.refresh_view()
            view.sync_replay()

    async def wait_for_polls(self) -> None:
        """Return once no poll is running or due now (for tests and benchmarks: never blocks the UI)."""
        await self.feed.wait_for_polls()

    def on_fed(self, message: Fed) -> None:
        """The one frame handler: a poll's frame (with the queue's tick), a failed poll, or a replay's history."""
        result = message.result
        if isinstance(result, PollFailed):
            notify_plain(self, result.error, severity="error", timeout=8)
            self.open_jobs_later()  # normally after the first frame, which a failing source may never give
            resume_collector()  # likewise
        elif isinstance(result, HistoryRead):
            if result.generation == self.feed.generation:
                self.state.history.replace(result.rings, result.latest)
                self.state.take_radar(result.radar)
                self.refresh_view()
            return
        else:
            self.feed.poll_count += 1
            tick = result.tick
            if tick is not None:
                self.job_keys.apply_tick(tick)
            if result.generation == self.feed.generation:
                self.apply_snapshot(result.snapshot)
                if tick is not None and tick.events:
                    self.record_keys.record(None, tick.events)
                if self.feed.poll_count == 1:
                    self.call_after_refresh(self.first_frame_drawn)
                elif self.feed.poll_count % TRIM_EVERY == TRIM_FIRST:
                    release_free_memory()
        self.feed.schedule()

    def apply_snapshot(self, snap: ClusterSnapshot) -> None:
        """Take a snapshot and draw it in the view in front; this is the only place the frame changes."""
        subtitle_changed = self.state.apply(snap)
        self.record_keys.record(snap, self.state.source_events)  # a recording keeps the frame and its events
        view = self.view_screen
        if view is not None:
            view.refresh_view()
            view.sync_replay()
            if subtitle_changed:
                view.refresh_bars()

    # -- jobs, recording, MPS ---------------------------------------------------------------------
    def request_poll(self) -> None:
        """Poll (and so tick the queue) as soon as possible, also while a replay is paused."""
        self.feed.schedule(0)

    def show_job_events(self, events: Sequence[Event]) -> None:
        """Write events (a job started, ended) to the event log of every view."""
        self.state.add_events(events)
        view = self.view_screen
        if view is not None and view.is_mounted:
            view.sync_replay()

    def open_jobs_later(self) -> None:
        """Open the job service (if it opens after the first frame) in a thread; it polls once it is open."""
        self.jobs.open_later(lambda service, note: self.post_message(JobsOpened(service, note)))

    def on_jobs_opened(self, message: JobsOpened) -> None:
        self.job_keys.opened(message.service, message.note)

    def close_jobs(self, timeout: float = 3.0) -> None:
        """After the app has run: close the job service (waiting for one still opening)."""
        self.jobs.close(timeout)

    async def action_submit_job(self) -> None:
        await self.job_keys.submit()

    def set_filter(self, text: str) -> None:
        """Show only the GPUs (and jobs) matching ``text``; '' shows everything again."""
        if not self.state.set_filter(text):
            return
        view = self.view_screen
        if view is not None:
            view.show_filter(text)
        self.refresh_view()

    # -- the replay ------------------------------------------------------------------------------
    def replay_state(self) -> ReplayState | None:
        return self.replay_controls.replay_state()

    def action_replay_toggle(self) -> None:
        self.replay_keys.show(self.replay_controls.toggle())

    def action_replay_step(self, frames: int) -> None:
        self.replay_keys.show(self.replay_controls.step(frames))

    def action_replay_jump(self, seconds: float) -> None:
        self.replay_keys.show(self.replay_controls.jump(seconds))

    def action_replay_faster(self) -> None:
        self.replay_keys.show(self.replay_controls.faster())

    def action_replay_slower(self) -> None:
        self.replay_keys.show(self.replay_controls.slower())

    def action_replay_seek(self) -> None:
        if self.replay is not None and (view := self.view_screen) is not None:
            view.open_seek()

    def on_replay_bar_seek_requested(self, message: ReplayBar.SeekRequested) -> None:
        self.replay_keys.seek(message.text)

    # -- app actions ---------------------------------------------------------------------------
    def action_view(self, name: str) -> None:
        if name in VIEWS and name != self.current_mode:
            self.switch_mode(name)

    def action_clear_or_back(self) -> None:
        if self.state.filter_text:
            self.set_filter("")
        elif self.current_mode != "overview":
            self.switch_mode("overview")

    def action_filter(self) -> None:
        view = self.view_screen
        if view is not None:
            view.open_filter()

    def action_sort(self) -> None:
        if (view := self.view_screen) is not None and (said := view.sort_next()) is not None:
            notify_plain(self, said, timeout=2)

    def action_sort_reverse(self) -> None:
        if (view := self.view_screen) is not None:
            view.sort_reverse()

    def action_gpu(self, delta: int) -> None:
        """Select the next (or previous) GPU in the order of the overview as filtered and sorted."""
        order = self._gpu_order()
        if not order:
            return
        self.state.step_selection(order, delta)
        self.refresh_view()

    def _gpu_order(self) -> list[str]:
        order = self.view_screen.gpu_order() if self.view_screen is not None else None
        return order if order is not None else [key for key, _, _ in self.state.visible_gpus()]

    def action_help(self) -> None:
        from gputui.ui.screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(self.keymap.help_screen())

    def action_cycle_theme(self) -> None:
        self.theme = next_theme(self.theme, self.theme_names)

    def action_set_theme(self, name: str) -> None:
        self.theme = resolve_theme(name, self.theme_names)

    def action_toggle_detail(self) -> None:
        if (view := self.view_screen) is not None:
            view.toggle_detail()


__all__ = ["DIALOG", "EXIT_AFTER_FIRST_FRAME", "GputuiApp"]
