"""The replay bar: recorded time, position, play state and speed, plus the seek input behind 'g'."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from gputui.dashboard.replay import ReplayState
from gputui.dashboard.seek_time import HELP, format_time
from gputui.render.cells import cell_len
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.one_line import OneLine
from gputui.ui.widgets.input_focus import FocusLending


def _clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def render_state(state: ReplayState, width: int, p: Palette = PLAIN) -> Text:
    """'▶ 2x  2024-05-01 12:03:04 UTC  frame 120 / 3600  ━━━●───  00:02:00 / 01:00:00'."""
    t = Text()
    if state.playing:
        t.append(" ▶ playing ", style=p.accent)
    elif state.position >= state.frame_count - 1 and state.frame_count > 1:
        t.append(" ■ at end  ", style=p.muted)
    else:
        t.append(" ‖ paused  ", style=p.muted)
    t.append(f"{state.speed:g}x ".rjust(5), style=p.text)
    t.append(f" {format_time(state.time)} ", style=p.text)
    t.append(f" frame {state.position + 1} / {state.frame_count} ", style=p.text)
    tail = f" {_clock(state.time - state.start_time)} / {_clock(state.end_time - state.start_time)}"
    room = width - cell_len(t.plain) - len(tail) - 2
    if room >= 10:
        span = max(1, state.frame_count - 1)
        at = round(state.position / span * (room - 1))
        t.append(" ")
        t.append("━" * at, style=p.accent)
        t.append("●", style=p.accent)
        t.append("─" * (room - 1 - at), style=p.gauge_empty)
    t.append(tail, style=p.muted)
    return t


class ReplayStatus(OneLine, Widget):
    """One line drawn from the current ReplayState at the widget's width, as one cached strip.

    Drawn by gputui, not as Textual Content: that path measures each word of the line with rich's cell-width cache,
    and a replay's clock, frame number and progress bar are new words every second (about 8 of the 11 strings a
    second that reached that cache on the demo, filling its 4,096 entries in five minutes)."""

    DEFAULT_CSS = """
    ReplayStatus { height: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: ReplayState | None = None
        self._palette: Palette = PLAIN

    @property
    def palette(self) -> Palette:
        return self._palette

    @palette.setter
    def palette(self, palette: Palette) -> None:
        if palette is not self._palette:
            self._palette = palette
            self.forget_line()
            self.refresh()

    def show(self, state: ReplayState) -> None:
        if state != self.state:
            self.state = state
            self.forget_line()
            self.refresh()

    def render(self) -> Text:
        return self.line_text(self.size.width)

    def line_text(self, width: int) -> Text:
        if self.state is None:
            return Text("")
        return render_state(self.state, width, self.palette)


class ReplayBar(Horizontal, FocusLending):
    """The status line and, while seeking, an input for the target time."""

    BINDINGS = [Binding("escape", "close_seek", "Cancel", show=False)]

    class SeekRequested(Message):
        """The user typed a time to go to."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def compose(self) -> ComposeResult:
        yield ReplayStatus(id="replay-status")
        # Made with the bar, not on the first 'g': keys typed right after it must land in the box.
        yield Input(placeholder=f"go to: {HELP}", id="seek")

    def on_mount(self) -> None:
        self.query_one("#seek", Input).display = False

    @property
    def status(self) -> ReplayStatus:
        return self.query_one(ReplayStatus)

    @property
    def seeking(self) -> bool:
        return bool(self.query_one("#seek", Input).display)

    def open_seek(self) -> None:
        """Show the seek box and put the cursor in it."""
        box = self.query_one("#seek", Input)
        box.value = ""
        box.display = True
        self.lend_focus_to(box)

    def action_close_seek(self) -> None:
        self.query_one("#seek", Input).display = False
        self.give_back_focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        self.action_close_seek()
        self.post_message(self.SeekRequested(text))
