"""Each view's event log: the dashboard's event feed (a replay's recorded events, or the job queue's) drawn.

The feed lives in the dashboard state so that every view shows the same events; a view's log catches up
with the feed when it is drawn, so a hidden view does no work while events arrive.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from gputui.core.model import Event
from gputui.dashboard.event_feed import FEED_LIMIT, EventFeed
from gputui.render.cells import cell_len
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.lean_strip import LeanStrip

# Both fit one line of an 80-column terminal.
PLACEHOLDER = "Recorded events (jobs, MPS daemons) appear here as the replay reaches them."
LIVE_PLACEHOLDER = "Job events (submitted, started, ended, cancelled) show here as they happen."
#: the drawn lines a log keeps, in screens (its height) of them
CACHED_SCREENS = 2


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


class LogLine:
    """One line of a log as its segments, without a Strip's seven caches: a kept line costs 1.1-1.3 KiB where a
    Strip, with the crops and styles cached on it, cost 8.4 KiB (500 lines: about 4 MiB in each view's log)."""

    __slots__ = ("segments", "cell_length")

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = tuple(segments)
        self.cell_length = sum(cell_len(segment.text) for segment in segments)

    def __iter__(self) -> Iterator[Segment]:
        return iter(self.segments)

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)

    def strip(self) -> Strip:
        return LeanStrip(list(self.segments), self.cell_length)


class TextLog(ScrollView, can_focus=True):
    """Lines of Rich Text, newest at the bottom, scrolled to the end as they come: what Textual's RichLog does for
    Text without wrapping, drawn the same way, without its import of rich.pretty (and, where attrs is installed,
    of attrs: together about 20 ms of the dashboard's start-up, for lines that are never pretty-printed).

    Unlike RichLog it keeps each line as its segments (LogLine) and caches only the lines drawn lately
    (CACHED_SCREENS screens of them), so that what a log holds grows by its lines' text, not by the Strips
    made to draw them."""

    DEFAULT_CSS = """
    TextLog {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        &:focus {
            background-tint: $foreground 5%;
        }
    }
    """

    def __init__(self, *, max_lines: int, min_width: int = 78, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.min_width = min_width  # lines are drawn at least this wide (scrolled sideways where the log is narrower)
        self.auto_scroll = True
        self.lines: list[LogLine] = []  # the lines kept, the oldest first
        self._start_line = 0  # lines dropped from the top since the last clear
        # the lines drawn lately, as drawn: emptied when it holds more than a few screens (see render_line)
        self._line_cache: dict[tuple[int, int, int, int, Style], Strip] = {}
        self._deferred: deque[Text] = deque()  # written before the log had a width
        self._widest_line_width = 0
        self._size_known = False

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line_cache.clear()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width and not self._size_known:
            self._size_known = True
            while self._deferred:
                self.write(self._deferred.popleft())

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.virtual_size.width if self._size_known else container.width

    def write(self, text: Text) -> None:
        """Add ``text`` (one line, or several) at the bottom; drawn once the log has a width."""
        if not self._size_known:
            self._deferred.append(text.copy())
            return
        text = text.copy()
        text.expand_tabs()
        console = self.app.console
        options = console.options.update(overflow="ignore", no_wrap=True)
        widest = max((cell_len(line) for line in text.plain.splitlines()), default=0)  # as Rich measures
        width = max(min(widest, self.scrollable_content_region.width), self.min_width)
        lines = list(Segment.split_lines(console.render(text, options.update_width(width))))
        if not lines:
            self._widest_line_width = max(width, self._widest_line_width)
            self.lines.append(LogLine([Segment(" " * width)]))
        else:
            new = [LogLine(line) for line in lines]
            self.lines.extend(new)
            if len(self.lines) > self.max_lines:
                self._start_line += len(self.lines) - self.max_lines
                self.refresh()
                self.lines = self.lines[-self.max_lines :]
            self._widest_line_width = max(self._widest_line_width, max(line.cell_length for line in new))
        self.virtual_size = Size(self._widest_line_width, len(self.lines))
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def clear(self) -> None:
        self.lines.clear()
        self._line_cache.clear()
        self._start_line = 0
        self._widest_line_width = 0
        self._deferred.clear()
        self.virtual_size = Size(0, 0)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        y += scroll_y
        if y >= len(self.lines):
            return Strip.blank(width, self.rich_style).apply_style(self.rich_style)
        style = self.rich_style
        key = (y + self._start_line, scroll_x, width, self._widest_line_width, style)
        line = self._line_cache.get(key)
        if line is None:
            if len(self._line_cache) > CACHED_SCREENS * max(self.size.height, 8):
                self._line_cache.clear()  # lines scrolled past, or drawn at another width or offset
            cropped = self.lines[y].strip().crop_extend(scroll_x, scroll_x + width, style)
            line = LeanStrip(list(Segment.apply_style(cropped, style)), cropped.cell_length)
            self._line_cache[key] = line
        return line


class EventLog(TextLog):
    """The most recent entries of the feed, newest at the bottom."""

    def __init__(self, *, replay: bool = False, id: str | None = None) -> None:
        """``replay``: the events are a recording's (the empty log says so)."""
        super().__init__(id=id, max_lines=FEED_LIMIT)
        self.replay = replay
        self.palette: Palette = PLAIN
        self.shown: list[Event] = []
        # every line shown (and whether it is a recorded event), to write again in another theme's colours
        self._written: list[tuple[Event | str, bool]] = []
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
        """Take a new theme's colours: the lines written already are written again in them (a line kept in the
        old theme's colours may be unreadable on the new background)."""
        self.palette = palette
        self.clear()
        if self._seen == 0:
            self.write(Text(placeholder(self.replay), style=palette.muted))
            self._placeholder = True
            return
        for entry in self._written:
            self._write(entry)
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _write(self, entry: tuple[Event | str, bool]) -> None:
        """One line: an event (``True``: one the recording holds, read-only) or a note."""
        e, recorded = entry
        if isinstance(e, Event):
            self.write(render_event(e, self.palette, recorded=recorded))
        else:
            self.write(Text(e, style=self.palette.muted))

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
            self._written = []
            new = list(feed.entries)
        self._rewrites = feed.rewrites
        for n, e in new:
            if isinstance(e, Event):
                self.shown.append(e)
            entry = (e, isinstance(e, Event) and feed.is_recorded(n))
            self._written.append(entry)
            self._write(entry)
        del self.shown[:-FEED_LIMIT]
        del self._written[:-FEED_LIMIT]
        self._seen = feed.count
