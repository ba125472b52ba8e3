"""What the seek box accepts: an offset from the current position, or any time `--at` takes."""

from __future__ import annotations

from datetime import UTC, datetime

from gputui.core.errors import TimeFormatError
from gputui.core.timefmt import parse_duration, parse_time

HELP = "+90s / -5m (from here), HH:MM[:SS] UTC, start, end"


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
        # Not --at's wording: here +90s counts from the frame shown, not from the start.
        raise TimeFormatError(f"{s!r} is not a time to go to; use {HELP}") from None


def format_time(t: float) -> str:
    """'2024-05-01 12:03:04 UTC' for an epoch time."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
