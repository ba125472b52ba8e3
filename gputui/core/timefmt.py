"""Times as users type them (`--at`, the seek box) and durations, turned into epoch seconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from gputui.core.errors import TimeFormatError

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s?)?$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?$")

TIME_HELP = (
    "start, end, +90s / +5m / -1h (from start / before end), HH:MM[:SS] (UTC), an ISO date-time, or epoch seconds"
)


def parse_duration(text: str) -> float:
    """'90', '90s', '5m', '1h30m', '1.5h' -> seconds."""
    m = _DURATION.match(text.strip().lower())
    if not text.strip() or not m or not any(m.groups()):
        raise TimeFormatError(f"'{text}' is not a duration (examples: 90s, 5m, 1h30m)")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mi * 60 + s


def parse_time(text: str, start: float, end: float) -> float:
    """Resolve a user's time against a recording that spans [start, end] (epoch seconds, UTC)."""
    t = text.strip()
    low = t.lower()
    if low in ("start", "begin", "first"):
        return start
    if low in ("end", "last"):
        return end
    if low[:1] in "+-" and len(low) > 1:
        d = parse_duration(low[1:])
        return start + d if low[0] == "+" else end - d
    m = _CLOCK.match(t)
    if m:
        day = datetime.fromtimestamp(start, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        hh, mm, ss = int(m.group(1)), int(m.group(2)), float(m.group(3) or 0)
        if hh > 23 or mm > 59 or ss >= 60:
            raise TimeFormatError(f"'{text}' is not a time of day")
        value = (day + timedelta(hours=hh, minutes=mm, seconds=ss)).timestamp()
        if value < start and value + 86400 <= end + 1:
            value += 86400  # the recording crosses midnight
        return value
    try:
        number = float(t)
    except ValueError:
        number = None
    if number is not None:
        return number
    try:
        dt = datetime.fromisoformat(t.replace("Z", "+00:00"))
    except ValueError:
        raise TimeFormatError(f"'{text}' is not a time; use {TIME_HELP}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def utc_text(t: float) -> str:
    """``t`` as people read it in a one-line message: ``2026-11-02 09:00:00 UTC``."""
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t))
