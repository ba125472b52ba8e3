"""Host lists as users write them: ``gpu01,gpu02``, ranges ``gpu[01-16]`` and ``node[1-3,7]``, as Slurm does.

Each name goes to ssh as one argv item after ``--``, never through a shell, and is checked first: a name that
could be read as an option (``-oProxyCommand=...``) or that holds spaces, quotes or control characters is
refused with one line, since no host in an ssh_config is named so.
"""

from __future__ import annotations

import re

from gputui.core.errors import SourceError
from gputui.core.plain_text import sanitise

MAX_HOSTS = 4096
# user@host, host names, ssh_config aliases: letters, digits and . _ - @ : (IPv6 in brackets is not a host list)
_NAME = re.compile(r"[A-Za-z0-9_.@:][A-Za-z0-9_.@:-]*")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def _expand_one(word: str) -> list[str]:
    m = _BRACKET.search(word)
    if m is None:
        return [word]
    head, tail = word[: m.start()], word[m.end() :]
    out: list[str] = []
    for part in m.group(1).split(","):
        lo, sep, hi = part.strip().partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise SourceError(f"host range [{sanitise(m.group(1))}]: expected numbers like [01-16] or [1,3,5-7]")
        if len(lo) > 6 or len(hi) > 6:
            raise SourceError(f"host range [{sanitise(m.group(1))}]: numbers too long")
        a, b = int(lo), int(hi) if sep else int(lo)
        if b < a:
            raise SourceError(f"host range [{sanitise(part)}]: runs backwards")
        if b - a >= MAX_HOSTS:
            raise SourceError(f"host range [{sanitise(part)}]: more than {MAX_HOSTS} hosts")
        width = len(lo) if lo.startswith("0") else 0  # gpu[01-16] keeps the zero padding
        for n in range(a, b + 1):
            out.extend(_expand_one(f"{head}{n:0{width}d}{tail}"))
            if len(out) > MAX_HOSTS:
                raise SourceError(f"host list: more than {MAX_HOSTS} hosts")
    return out


def _split(spec: str) -> list[str]:
    """Split on commas outside brackets."""
    words, depth, cur = [], 0, ""
    for ch in spec:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            words.append(cur)
            cur = ""
        else:
            cur += ch
    words.append(cur)
    return words


def expand_hosts(specs: list[str] | str) -> list[str]:
    """Every host named by ``specs`` (comma lists, ranges), in order, each once; SourceError on a bad name."""
    items = [specs] if isinstance(specs, str) else specs
    out: list[str] = []
    seen: set[str] = set()
    for spec in items:
        for word in _split(spec):
            word = word.strip()
            if not word:
                continue
            for name in _expand_one(word):
                if not _NAME.fullmatch(name):
                    raise SourceError(
                        f"host {sanitise(name)!r}: not a host name (letters, digits and . _ - @ : only, "
                        "not starting with '-')"
                    )
                if name not in seen:
                    seen.add(name)
                    out.append(name)
    if len(out) > MAX_HOSTS:
        raise SourceError(f"host list: more than {MAX_HOSTS} hosts")
    return out
