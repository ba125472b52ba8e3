"""Each view's event log: the dashboard's event feed (a replay's recorded events, or the job queue's) drawn.

The feed lives in the dashboard state so that every view shows the same events; a view's log catches up
with the feed when it is drawn, so a hidden view does no work while events arrive.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual import events
from textual.widgets import RichLog

from gputui.core.model import Event
from gputui.dashboard.event_feed import FEED_LIMIT, EventFeed
from gputui.ui.palette import PLAIN, Palette

# Both fit one line of an 80-column terminal.
PLACEHOLDER = "Recorded events (jobs, MPS daemons) appear here as the replay reaches them."
LIVE_PLACEHOLDER = "Job events (submitted, started, ended, cancelled) show here as they happen."


def placeholder(replay: bool) -> str:
    """The empty log's text: a replay's recorded events, or on a live source (NVML, Slurm) the job queue's."""
    return PLACEHOLDER if replay else LIVE_PLACEHOLDER


def render_event(e: Event, p: Palette = PLAIN, *, recorded: bool = False) -> Text:
    """'12:03:04 job_started  48226 started on node04 GPU 0': the message, or where it happened without one. A
    job event the replay recorded (``recorded``) is marked as such: history, not a job of the queue."""
    t = Text(datetime.fromtimestamp(e.timestamp, UTC).strftime("%H:%M:%S "), style=p.muted)
    style = p.lost if e.kind == "job_failed" else p.mps if e.kind.startswith("mps") else p.accent
    t.append(f"{e.kind:<13} ", style=style)
    if e.message:
        t.append(e.message, style=p.text)
    else:
        where = [e.node or "", "GPU " + ",".join(map(str, e.gpus)) if e.gpus else "", e.job_id or ""]
        t.append(" ".join(w for w in where if w), style=p.text)
    if recorded and e.kind.startswith("job"):
        t.append("  (recorded job: read-only)", style=p.muted)
    return t


class EventLog(RichLog):
    """The most recent entries of the feed, newest at the bottom."""

    def __init__(self, *, replay: bool = False, id: str | None = None) -> None:
        """``replay``: the events are a recording's (the empty log says so)."""
        super().__init__(id=id, max_lines=FEED_LIMIT, wrap=False, markup=False, auto_scroll=True)
        self.replay = replay
        self.palette: Palette = PLAIN
        self.shown: list[Event] = []
        self._seen = 0
        self._rewrites = 0
        self._placeholder = False
        self._height = 0

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        # A view's log can get shorter after lines were written (the narrow layout applies on the first resize):
        # the newest line stays in sight if it was.
        shrunk = self._height - event.size.height
        self._height = event.size.height
        if shrunk > 0 and self.auto_scroll and self.max_scroll_y - self.scroll_y <= shrunk:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        if self._seen == 0:
            self.clear()
            self.write(Text(placeholder(self.replay), style=palette.muted))
            self._placeholder = True

    def sync(self, feed: EventFeed) -> None:
        """Write the feed's entries this log has not shown yet."""
        if feed.count == self._seen:
            return
        new = [(n, e) for n, e in feed.entries if n > self._seen]
        behind = feed.entries and min(n for n, _ in feed.entries) > self._seen + 1
        if self._placeholder or behind or feed.rewrites != self._rewrites:
            # First entries, or the log fell behind the feed's memory: start from what the feed has.
            self._placeholder = False
            self.clear()
            self.shown = []
            new = list(feed.entries)
        self._rewrites = feed.rewrites
        for n, e in new:
            if isinstance(e, Event):
                self.shown.append(e)
                self.write(render_event(e, self.palette, recorded=feed.is_recorded(n)))
            else:
                self.write(Text(e, style=self.palette.muted))
        del self.shown[:-FEED_LIMIT]
        self._seen = feed.count
