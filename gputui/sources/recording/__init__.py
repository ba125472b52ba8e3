"""gputui's own recording format: writer, reader and the delta codec behind them."""

from gputui.sources.recording.reader import RecordingReader
from gputui.sources.recording.writer import RecordingWriter

__all__ = ["RecordingReader", "RecordingWriter"]
