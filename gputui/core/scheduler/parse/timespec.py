"""Slurm's time-limit formats (``--time``) to whole seconds, and seconds back to Slurm's display form."""

from __future__ import annotations

import re

from gputui.core.numbers import shown, too_long
from gputui.core.scheduler.errors import RequestError

#: What ``--time=INFINITE`` (or ``UNLIMITED``, or ``0``) parses to: no limit at all.
UNLIMITED = -1
MAX_LIMIT_S = (2**32 - 2) * 60  # Slurm keeps a limit as 32-bit minutes; the store's integers hold it easily

_FORMS = (
    # days-hours[:minutes[:seconds]]
    (re.compile(r"(\d+)-(\d+)(?::(\d+))?(?::(\d+))?"), lambda d, h, m, s: ((d * 24 + h) * 60 + m) * 60 + s),
    # hours:minutes:seconds
    (re.compile(r"()(\d+):(\d+):(\d+)"), lambda d, h, m, s: (h * 60 + m) * 60 + s),
    # minutes:seconds
    (re.compile(r"()()(\d+):(\d+)"), lambda d, h, m, s: m * 60 + s),
    # minutes
    (re.compile(r"()()(\d+)()"), lambda d, h, m, s: m * 60),
)


def parse_time_limit(text: str, option: str = "--time") -> int:
    """Seconds in a Slurm time limit, or :data:`UNLIMITED`.

    Accepted, as Slurm does: ``M``, ``M:S``, ``H:M:S``, ``D-H``, ``D-H:M``, ``D-H:M:S``, ``INFINITE`` /
    ``UNLIMITED``; a limit of 0 means no limit.
    """
    t = text.strip()
    if t.upper() in ("INFINITE", "UNLIMITED"):
        return UNLIMITED
    for pattern, combine in _FORMS:
        m = pattern.fullmatch(t)
        if m:
            if any(too_long(x) for x in m.groups() if x):
                raise RequestError(f"{option}: time limit {shown(t)} is too long (at most {MAX_LIMIT_S // 60} minutes)")
            d, h, mi, s = (int(x) if x else 0 for x in m.groups())
            seconds = combine(d, h, mi, s)
            if seconds > MAX_LIMIT_S:
                raise RequestError(
                    f"{option}: time limit {shown(t)} is too long (at most {MAX_LIMIT_S // 60} minutes, or UNLIMITED)"
                )
            return UNLIMITED if seconds == 0 else seconds
    raise RequestError(f"{option}: cannot read time limit {shown(text)} (use M, M:S, H:M:S, D-H, D-H:M or D-H:M:S)")


def format_duration(seconds: int) -> str:
    """Slurm's ``[D-]HH:MM:SS`` for a number of seconds; ``UNLIMITED`` for :data:`UNLIMITED`."""
    if seconds == UNLIMITED:
        return "UNLIMITED"
    seconds = max(0, int(seconds))
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    hms = f"{h:02d}:{m:02d}:{s:02d}"
    return f"{d}-{hms}" if d else hms


_UNITS = {"": 1, "s": 1, "sec": 1, "second": 1, "seconds": 1, "m": 60, "min": 60, "minute": 60, "minutes": 60,
          "h": 3600, "hour": 3600, "hours": 3600, "d": 86400, "day": 86400, "days": 86400, "w": 604800,
          "week": 604800, "weeks": 604800}  # fmt: skip
_NOW = re.compile(r"now(?:\+(\d{1,9})([a-z]*))?")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_NAMED = {"midnight": (0, 0), "noon": (12, 0), "teatime": (16, 0), "fika": (15, 0), "today": (0, 0),
          "tomorrow": (0, 0)}  # fmt: skip


def parse_begin(text: str, option: str = "--begin") -> str:
    """A ``--begin`` time in one of Slurm's forms gputui reads (``now+N[units]``, ``YYYY-MM-DD[THH:MM[:SS]]``,
    ``HH:MM[:SS]``, ``midnight``, ``noon``, ``teatime``, ``fika``, ``today``, ``tomorrow``), normalised."""
    t = text.strip().lower()
    m = _NOW.fullmatch(t)
    if (m and (m.group(2) or "") in _UNITS) or _DATE.fullmatch(t) or _CLOCK.fullmatch(t) or t in _NAMED:
        return t
    raise RequestError(f"{option}: cannot read begin time {text!r} (use now+N[minutes|hours|days], "
                       "YYYY-MM-DD[THH:MM[:SS]] or HH:MM[:SS])")  # fmt: skip


def begin_time(text: str, now: float) -> float:
    """The moment a normalised ``--begin`` (see :func:`parse_begin`) stands for, seen at ``now`` (local time, as
    Slurm reads it); a clock time already past today means tomorrow."""
    import datetime as dt

    m = _NOW.fullmatch(text)
    if m:
        return now + (int(m.group(1) or 0) * _UNITS[m.group(2) or ""])
    base = dt.datetime.fromtimestamp(now)
    d = _DATE.fullmatch(text)
    if d:
        y, mo, day, h, mi, s = (int(x) if x else 0 for x in d.groups())
        return dt.datetime(y, mo, day, h, mi, s).timestamp()
    c = _CLOCK.fullmatch(text)
    h, mi, s = (int(x) if x else 0 for x in c.groups()) if c else (*_NAMED[text], 0)
    at = base.replace(hour=h, minute=mi, second=s, microsecond=0)
    if text == "tomorrow" or (text != "today" and at.timestamp() <= now):
        at += dt.timedelta(days=1)
    return at.timestamp()
