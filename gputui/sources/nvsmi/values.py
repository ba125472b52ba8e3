"""Turning nvidia-smi value strings into model values, with every N/A spelling mapped to None."""

from __future__ import annotations

import calendar
import functools
import re

#: What nvidia-smi prints instead of a value (bare in -q / XML, in brackets in CSV).
NA_VALUES = frozenset(
    {
        "n/a",
        "not supported",
        "requested functionality has been deprecated",
        "unknown error",
        "insufficient permissions",
        "not available",
        "gpu requires reset",
        "gpu is lost",
        "no permission",
    }
)

_NUMBER = re.compile(r"\s*([-+]?\d+(?:\.\d+)?)")
_NOTE = re.compile(r"\s*\[[^\]]*\]\s*$")
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_CSV_TIME = re.compile(r"(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$")


def is_na(raw: str) -> bool:
    s = raw.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1].strip()
    return not s or s.lower() in NA_VALUES


def text(raw: str | None) -> str | None:
    """A string value, or None where nvidia-smi printed N/A (or nothing)."""
    if raw is None or is_na(raw):
        return None
    return raw.strip()


def version(raw: str | None) -> str | None:
    """A version string without the note driver 610 appends: '610.57.04 [Deprecated; ... instead]' -> '610.57.04'."""
    v = text(raw)
    if v is None:
        return None
    return _NOTE.sub("", v) or None


def number(raw: str | None) -> float | None:
    """The leading number of '81920 MiB', '67.03 W', '30 %'; None for N/A and anything not numeric."""
    if raw is None:
        return None
    m = _NUMBER.match(raw)
    return float(m.group(1)) if m else None


def integer(raw: str | None) -> int | None:
    """The leading number rounded to an int; None for N/A and anything not numeric."""
    if raw is None:
        return None
    head = raw.lstrip().partition(" ")[0]
    if head.isdigit():  # the common case, without regex or exceptions
        return int(head)
    n = number(raw)
    return None if n is None else round(n)


def enabled(raw: str | None) -> bool | None:
    """'Enabled' -> True, 'Disabled' -> False, anything else (N/A) -> None."""
    if raw is None:
        return None
    s = raw.strip().lower()
    if s == "enabled":
        return True
    if s == "disabled":
        return False
    return None


@functools.lru_cache(maxsize=256)
def _hour_start(prefix: str) -> int | None:
    """Epoch seconds of '2026/07/14 09' (UTC), or None when it is not such a date and hour."""
    m = _CSV_TIME.match(prefix + ":00:00")
    if m is None:
        return None
    y, mo, d, h = (int(x) for x in m.groups()[:4])
    try:
        return calendar.timegm((y, mo, d, h, 0, 0, 0, 0, 0))
    except ValueError:  # month 13 and the like
        return None


def smi_time(raw: str | None) -> float | None:
    """Seconds since the epoch for nvidia-smi's 'Fri Aug  4 11:44:30 2023', read as UTC.

    The logs carry no time zone; UTC is the only reading that needs no guess about the machine
    that wrote them. Month names are matched by hand so that the process locale does not matter.
    """
    if raw is None:
        return None
    parts = raw.split()
    if len(parts) != 5:
        return None
    _dow, mon, day, hms, year = parts
    month = _MONTHS.get(mon.lower()[:3])
    try:
        h, mi, s = (int(x) for x in hms.split(":"))
        return float(calendar.timegm((int(year), month or 0, int(day), h, mi, s, 0, 0, 0))) if month else None
    except ValueError:
        return None


def csv_time(raw: str | None) -> float | None:
    """Seconds since the epoch for a query-gpu timestamp '2026/07/14 09:00:27.792', read as UTC."""
    if raw is None:
        return None
    s = raw.strip()
    # the fast path for nvidia-smi's fixed layout: the date and hour converted once per hour of log
    if len(s) > 20 and s[13] == ":" and s[16] == ":" and s[19] == "." and s[14:16].isdigit() and s[17:19].isdigit():
        base = _hour_start(s[:13])
        frac = s[20:]
        if base is not None and frac.isdigit():
            return base + int(s[14:16]) * 60 + int(s[17:19]) + int(frac) / 10 ** len(frac)
    m = _CSV_TIME.match(s)
    if m is None:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    try:
        whole = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    except ValueError:
        return None
    return whole + (int(frac) / 10 ** len(frac) if frac else 0.0)
