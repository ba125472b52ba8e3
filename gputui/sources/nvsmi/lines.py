"""Reading a log as text, whatever it was saved as (UTF-8, or UTF-16 with a BOM as PowerShell's `>` writes it),
line by line with a cap on line length, so a file with no newlines cannot fill memory."""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import BinaryIO, TextIO

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


class TailWatch:
    """Lines passed through, remembering whether the last non-blank one lacked its newline (the file was cut
    inside it: nvidia-smi ends every line it writes)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.cut = False

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            if line.strip():
                self.cut = not line.endswith(("\n", "\r"))
            yield line


_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def is_utf16(head: bytes) -> bool:
    """Whether bytes start with a UTF-16 byte order mark."""
    return head.startswith(_UTF16_BOMS)


def encoding_of(path: str) -> str:
    """'utf-16' for a file that starts with a UTF-16 BOM, else 'utf-8-sig' (which drops a UTF-8 BOM)."""
    with open(path, "rb") as f:
        return "utf-16" if is_utf16(f.read(2)) else "utf-8-sig"


def open_text(path: str, label: str) -> TextIO:
    """Open a log as text without its BOM; bytes that do not decode (in process names, say) are replaced."""
    try:
        return open(path, encoding=encoding_of(path), errors="replace", newline=None)
    except OSError as e:
        raise SourceError(f"{label}: cannot open ({e.strerror or e})") from None


class _Utf8Bytes(io.RawIOBase):
    """A UTF-16 file read as UTF-8 bytes, a chunk at a time, for the byte-level XML reader."""

    def __init__(self, text: TextIO) -> None:
        self._text = text
        self._pending = b""

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._pending) < size:
            chars = self._text.read(size if size > 0 else -1)
            if not chars:
                break
            self._pending += chars.encode("utf-8")
            if size < 0:
                break
        out, self._pending = (self._pending, b"") if size < 0 else (self._pending[:size], self._pending[size:])
        return out

    def close(self) -> None:
        self._text.close()
        super().close()

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def open_bytes(path: str, label: str) -> BinaryIO:
    """The file's bytes, as UTF-8 when it was saved as UTF-16 (nvidia-smi's XML declares no encoding)."""
    try:
        if encoding_of(path) == "utf-16":
            return _Utf8Bytes(open(path, encoding="utf-16", errors="replace", newline=""))  # type: ignore[return-value]
        return open(path, "rb")
    except OSError as e:
        raise SourceError(f"{label}: cannot open ({e.strerror or e})") from None
