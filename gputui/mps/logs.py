"""The last lines of an MPS log (control.log, server.log), read from the end of the file only."""

from __future__ import annotations

import os
from dataclasses import dataclass

CONTROL_LOG = "control.log"
SERVER_LOG = "server.log"


@dataclass(frozen=True, slots=True)
class LogTail:
    """The tail of one log file; ``error`` says why there are no lines (missing, refused)."""

    path: str
    lines: tuple[str, ...] = ()
    error: str | None = None


def tail(path: str, n: int = 10, max_bytes: int = 64 * 1024) -> LogTail:
    """The last ``n`` lines of ``path``, decoded leniently; long logs are not read whole."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except FileNotFoundError:
        return LogTail(path, error="no such file")
    except OSError as e:
        return LogTail(path, error=e.strerror or str(e))
    lines = data.decode(errors="replace").splitlines()
    if size > max_bytes and lines:
        lines = lines[1:]  # the first line read is probably cut
    return LogTail(path, tuple(lines[-n:]) if n > 0 else ())


def log_tails(log_directory: str, n: int = 10) -> tuple[LogTail, LogTail]:
    return tail(os.path.join(log_directory, CONTROL_LOG), n), tail(os.path.join(log_directory, SERVER_LOG), n)
