"""Index lists as Slurm writes them (``3``, ``0-3``): one reader for request options and GRES strings."""

from __future__ import annotations

import re

from gputui.core.numbers import too_long

_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


def index_range(part: str, max_span: int) -> range | None:
    """``3`` or ``0-3`` -> the indices it names; None when ``part`` is neither, an empty range when it runs
    backwards or spans more than ``max_span``."""
    m = _RANGE.fullmatch(part.strip())
    if not m:
        return None
    if too_long(m.group(1)) or too_long(m.group(2) or ""):
        return range(0)
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if hi < lo or hi - lo > max_span:
        return range(0)
    return range(lo, hi + 1)
