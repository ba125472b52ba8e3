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
