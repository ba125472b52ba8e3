"""A few lines of recorded events (jobs, MPS daemons), written as the replay passes them."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.widgets import RichLog

from gputui.core.model import Event
from gputui.ui.palette import PLAIN, Palette


def render_event(e: Event, p: Palette = PLAIN) -> Text:
    """'12:03:04 job_started  48226 started on node04 GPU 0': the message, or where it happened without one."""
    t = Text(datetime.fromtimestamp(e.timestamp, UTC).strftime("%H:%M:%S "), style=p.muted)
    style = p.lost if e.kind == "job_failed" else p.mps if e.kind.startswith("mps") else p.accent
    t.append(f"{e.kind:<13} ", style=style)
    if e.message:
        t.append(e.message, style=p.text)
        return t
    where = [e.node or "", "GPU " + ",".join(map(str, e.gpus)) if e.gpus else "", e.job_id or ""]
    t.append(" ".join(w for w in where if w), style=p.text)
    return t


class EventLog(RichLog):
    """The most recent events, newest at the bottom."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, max_lines=500, wrap=False, markup=False, auto_scroll=True)
        self.palette: Palette = PLAIN
        self.shown: list[Event] = []
        self._placeholder = True

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        if self._placeholder:
            self.clear()
            self.write(
                Text(
                    "Events from the recording (jobs, MPS daemons) appear here as the replay reaches them.",
                    style=palette.muted,
                )
            )

    def add(self, events: list[Event]) -> None:
        if events and self._placeholder:
            self._placeholder = False
            self.clear()
        for e in events:
            self.shown.append(e)
            self.write(render_event(e, self.palette))
        del self.shown[:-500]

    def mark(self, text: str) -> None:
        self.write(Text(text, style=self.palette.muted))
