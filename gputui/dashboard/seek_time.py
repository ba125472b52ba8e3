"""What the seek box accepts: an offset from the current position, or any time `--at` takes."""

from __future__ import annotations

from datetime import UTC, datetime

from gputui.core.errors import TimeFormatError
from gputui.core.timefmt import parse_duration, parse_time

#: what the seek box (`g`) takes, in its prompt, its error message and the README alike
HELP = "+90s / -5m (from the frame on screen), HH:MM[:SS] (UTC), an ISO date-time, start, end"


def parse_seek(text: str, *, current: float, start: float, end: float) -> float:
    """The recorded time ``text`` names; '+90s' and '-5m' count from ``current``, not from the ends.

    Raises TimeFormatError (one line) for anything else that core.timefmt cannot read either.
    """
    s = text.strip()
    try:
        if s[:1] in "+-" and len(s) > 1:
            d = parse_duration(s[1:].strip())
            return current + d if s[0] == "+" else current - d
        return parse_time(s, start, end)
    except TimeFormatError:
        raise TimeFormatError(f"go to {text.strip()!r}: not a time; use {HELP}") from None


def format_time(t: float) -> str:
    """'2024-05-01 12:03:04 UTC' for an epoch time."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
