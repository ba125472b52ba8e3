"""Reading a text log line by line with a cap on line length, so a file with no newlines cannot fill memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from gputui.core.errors import SourceError

MAX_LINE_CHARS = 1 << 16  # the longest real lines (a query-gpu header of 200+ fields) are about 6 KiB


def bounded_lines(f: TextIO, label: str) -> Iterator[str]:
    """Yield the lines of ``f`` (newline kept); a line longer than the cap is an error naming the file."""
    while True:
        line = f.readline(MAX_LINE_CHARS)
        if not line:
            return
        if len(line) >= MAX_LINE_CHARS and not line.endswith("\n"):
            raise SourceError(f"{label}: a line is longer than {MAX_LINE_CHARS // 1024} KiB; not an nvidia-smi log")
        yield line


def open_text(path: str, label: str) -> TextIO:
    """Open a log as UTF-8 text without its BOM; bytes that are not UTF-8 (in process names, say) are replaced."""
    try:
        return open(path, encoding="utf-8-sig", errors="replace", newline=None)
    except OSError as e:
        raise SourceError(f"{label}: cannot open ({e.strerror or e})") from None
