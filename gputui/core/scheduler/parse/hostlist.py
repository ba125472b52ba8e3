"""Slurm host lists: ``node[01-04,07],gpu-a`` expanded to names and names folded back into ranges."""

from __future__ import annotations

import re

from gputui.core.numbers import shown, too_long
from gputui.core.scheduler.errors import RequestError

_MAX_HOSTS = 100_000  # a typo such as node[1-999999999] must not exhaust memory
_NAME_CHARS = re.compile(r"^[A-Za-z0-9_.\-]+$")


def _split_top_level(text: str, option: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise RequestError(f"{option}: nested '[' in host list {shown(text)}")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise RequestError(f"{option}: unbalanced ']' in host list {shown(text)}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise RequestError(f"{option}: unbalanced '[' in host list {shown(text)}")
    parts.append("".join(cur))
    return parts


def _expand_range(body: str, option: str) -> list[str]:
    out: list[str] = []
    for item in body.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item.strip())
        if not m:
            raise RequestError(f"{option}: bad range {shown(item)} in host list")
        lo_s, hi_s = m.group(1), m.group(2) or m.group(1)
        if too_long(lo_s) or too_long(hi_s):
            raise RequestError(f"{option}: range {shown(item)} is too large")
        lo, hi = int(lo_s), int(hi_s)
        if hi < lo:
            raise RequestError(f"{option}: range {shown(item)} runs backwards")
        if hi - lo >= _MAX_HOSTS:
            raise RequestError(f"{option}: range {shown(item)} is too large")
        width = len(lo_s)
        out.extend(str(i).zfill(width) for i in range(lo, hi + 1))
    return out


def _expand_one(pattern: str, option: str) -> list[str]:
    names = [""]
    pos = 0
    for m in re.finditer(r"\[([^\]]*)\]", pattern):
        prefix = pattern[pos : m.start()]
        values = _expand_range(m.group(1), option)
        names = [n + prefix + v for n in names for v in values]
        if len(names) > _MAX_HOSTS:
            raise RequestError(f"{option}: host list {shown(pattern)} is too large")
        pos = m.end()
    names = [n + pattern[pos:] for n in names]
    for n in names:
        if not _NAME_CHARS.match(n):
            raise RequestError(f"{option}: bad host name {shown(n)}")
    return names


def expand_hostlist(text: str, option: str = "--nodelist") -> tuple[str, ...]:
    """Names in a Slurm host list, in order, without duplicates; ``option`` names the option in errors."""
    if "/" in text:
        raise RequestError(f"{option}: host list files are not supported ({shown(text)})")
    seen: dict[str, None] = {}
    for part in _split_top_level(text.strip(), option):
        part = part.strip()
        if not part:
            raise RequestError(f"{option}: empty host name in {shown(text)}")
        for name in _expand_one(part, option):
            seen.setdefault(name, None)
    return tuple(seen)


def compress_hostlist(names: list[str] | tuple[str, ...]) -> str:
    """Fold names into Slurm's range form: ``node01,node02,node03,gpu7`` -> ``node[01-03],gpu7``."""
    groups: dict[tuple[str, int, str], list[int]] = {}
    order: list[tuple[str, int, str] | str] = []
    for n in names:
        m = re.fullmatch(r"(.*?)(\d+)(\D*)", n)
        if not m or too_long(m.group(2)):
            order.append(n)
            continue
        key = (m.group(1), len(m.group(2)), m.group(3))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(m.group(2)))
    out: list[str] = []
    for entry in order:
        if isinstance(entry, str):
            out.append(entry)
            continue
        prefix, width, suffix = key = entry
        nums = sorted(set(groups[key]))
        if len(nums) == 1:
            out.append(f"{prefix}{str(nums[0]).zfill(width)}{suffix}")
            continue
        runs: list[str] = []
        start = prev = nums[0]
        for x in [*nums[1:], None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            a, b = str(start).zfill(width), str(prev).zfill(width)
            runs.append(a if start == prev else f"{a}-{b}")
            if x is not None:
                start = prev = x
        out.append(f"{prefix}[{','.join(runs)}]{suffix}")
    return ",".join(out)
