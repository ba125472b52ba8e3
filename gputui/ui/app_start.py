"""The dashboard app's start-up steps (GputuiApp's base): the first poll drawn into the first paint, the styles of
what the first frame does not show read after it, a CSS refresh without a re-parse, the CSS variables worked out
once per theme. ``python -m gputui.bench ui_startup --baseline`` measures the start-up against a bare Textual app."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from textual.app import App
from textual.theme import Theme

from gputui.resources import themes_dir
from gputui.ui.messages import Fed
from gputui.ui.render.app_internals import parsed_as_is, read_css_files

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from gputui.dashboard.feed import Feed

#: Benchmark hook: with this environment variable set to 1 the app exits right after its first
#: complete frame, printing the monotonic time of that frame (see ``python -m gputui.bench ui_startup``); with
#: "now" the process ends there, without Python's shutdown (the bench's instruction count stops at the frame).
EXIT_AFTER_FIRST_FRAME = "GPUTUI_EXIT_AFTER_FIRST_FRAME"

#: How long the first view waits, before its first paint, for the first poll (started when the app loads, so that
#: it runs while Textual builds the view): a source that answers within it is in the first frame drawn; a slower
#: one's result is drawn when it comes, into the view already shown.
FIRST_POLL_WAIT_S = 0.1


class StartingApp(App[None]):
    """An App with a ``feed`` and a frame handler ``on_fed`` (GputuiApp) that starts as described above."""

    #: the styles of what the first frame never draws (the other views, help, dialogs): see read_later_css
    LATER_CSS = ("views.tcss", "jobs.tcss")
    _later_css_read = False
    _css_variables: tuple[Theme, dict[str, str]] | None = None

    if TYPE_CHECKING:
        feed: Feed

        def on_fed(self, message: Fed) -> None: ...

    def on_load(self) -> None:
        self.feed.start(hold_first=True)  # the first poll runs while Textual builds the first view

    def take_first_poll(self) -> None:
        """Before the first view's first paint: apply the first poll's result if it comes in FIRST_POLL_WAIT_S,
        so that the first frame painted is complete (no empty frame first; one paint fewer)."""
        result = self.feed.take_first(FIRST_POLL_WAIT_S)
        if result is not None:
            self.on_fed(Fed(result))

    def exits_for_bench(self, drawn: float) -> bool:
        """At the first frame (drawn at monotonic ``drawn``), under the benchmark hook: exit, saying when."""
        bench = os.environ.get(EXIT_AFTER_FIRST_FRAME)
        if bench not in ("1", "now"):
            return False
        message = f"gputui: first complete frame at monotonic {drawn:.6f}"
        if bench == "now":
            os.write(sys.__stdout__.fileno() if sys.__stdout__ else 1, message.encode() + b"\n")
            os._exit(0)
        self.exit(message=message)
        return True

    def read_later_css(self) -> None:
        """Read LATER_CSS, once: after the first frame, or before a view or dialog is first shown if that comes
        sooner (parsing them before the first frame cost about 10 ms of start-up, for nothing on it)."""
        if not self._later_css_read:
            self._later_css_read = True
            read_css_files(self, [themes_dir() / name for name in self.LATER_CSS])

    def switch_mode(self, mode: str) -> AwaitMount:
        self.read_later_css()
        return super().switch_mode(mode)

    if not TYPE_CHECKING:  # typed as Textual's (overloaded) push_screen

        def push_screen(self, *args, **kwargs):
            self.read_later_css()
            return super().push_screen(*args, **kwargs)

    def refresh_css(self, animate: bool = True) -> None:
        with parsed_as_is(self):  # the first showing of each view re-parsed everything (see parsed_as_is)
            super().refresh_css(animate)

    def get_css_variables(self) -> dict[str, str]:
        """Textual's, worked out once per theme: each costs about a millisecond, and start-up asked five times."""
        theme = self.current_theme
        cached = self._css_variables
        if cached is None or cached[0] is not theme:
            cached = self._css_variables = (theme, super().get_css_variables())
        self.theme_variables = cached[1]  # as Textual's sets it
        return dict(cached[1])
