"""The command line's text streams made plain: every line written to stdout or stderr passes the one sanitiser.

Job names, option typos quoted by an error, a job's output tail, a host's process names: whatever a command
prints as text reaches the terminal with its control characters shown as escapes (see core/plain_text.py).
Line breaks stay breaks. JSON output is unchanged by it (json escapes control characters itself). The few
writers that send the terminal deliberate sequences (the snapshot's tables, whose data is sanitised before it is
styled; ``queue --watch``'s screen clear) write to :func:`terminal` instead.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TextIO

from gputui.core.plain_text import sanitise_block


class PlainStream(io.TextIOBase):
    """A text stream that sanitises each line on its way to ``raw``."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, s: str) -> int:
        self.raw.write(sanitise_block(s))
        return len(s)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.raw, "encoding", "utf-8")


def terminal(stream: TextIO) -> TextIO:
    """The stream under a :class:`PlainStream` (for output that is already made safe), else ``stream``."""
    return stream.raw if isinstance(stream, PlainStream) else stream  # type: ignore[return-value]


@contextmanager
def plain_streams() -> Iterator[None]:
    """While inside, ``sys.stdout`` and ``sys.stderr`` are plain streams."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PlainStream(out), PlainStream(err)  # type: ignore[assignment]
    try:
        yield
    finally:
        with suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err
