"""Errors a user can cause: each carries one line that names the problem, shown without a traceback."""

from __future__ import annotations


class GputuiError(Exception):
    """Base of every error caused by input (a file, an argument, a missing driver), not by a bug."""


class SnapshotFormatError(GputuiError):
    """Snapshot data (JSON, a recording frame) does not match the model."""


class SourceError(GputuiError):
    """A source cannot be opened or read: wrong format, truncated file, missing driver."""


class RecordingError(SourceError):
    """A recording file is not a gputui recording, or is damaged beyond its last good frame."""


class NvmlUnavailable(SourceError):
    """No NVML library or no driver answering."""


class TimeFormatError(GputuiError):
    """A time given on the command line cannot be understood."""
