"""Errors a jobs user can cause or meet: each carries one line, shown without a traceback."""

from __future__ import annotations

from gputui.core.errors import GputuiError


class StoreError(GputuiError):
    """The state database cannot be read or written; nothing was changed."""


class StoreLocked(StoreError):
    """Another process held the database's write lock for longer than the busy timeout."""


class StoreFull(StoreError):
    """The disk (or the database's size limit) is full."""


class StoreReadOnly(StoreError):
    """The database or its directory cannot be written."""


class JobError(GputuiError):
    """A job operation was refused: unknown id, another user's job, a job in the wrong state."""


class JobNotFound(JobError):
    """No job with that id (in this cluster's queue)."""


class JobRefused(JobError):
    """The job exists but the operation is not allowed: another user's job, or a job in the wrong state."""
