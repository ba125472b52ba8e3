"""GRES strings as Slurm prints them: ``gpu:a100:4(S:0-1)``, ``gpu:a100:2(IDX:0-1)``, ``gpu:2,mps:200``,
``gpu:1g.10gb:1(IDX:0),gpu:3g.40gb:0(IDX:)``, ``mps:(null):1(IDX:0)``, ``shard:8``; and the TRES forms of a job's
request (``gres:gpu:a100:2`` in 22.05, ``gres/gpu:a100=2`` in later releases)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gputui.core.index_ranges import index_range
from gputui.core.mig_profiles import normalise_profile_name
from gputui.slurm.errors import SlurmError

_NULL = {"", "(null)", "null", "n/a", "none"}
_COUNT = re.compile(r"(\d+)([KMGTP]?)", re.IGNORECASE)
_MULT = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4, "P": 1024**5}
_MIG = re.compile(r"\d+g\.\d+gb(?:\+me)?")


@dataclass(frozen=True, slots=True)
class GresItem:
    """One GRES of a node or a job: its name, type, count and, where Slurm says, device indices."""

    name: str  # "gpu", "mps", "shard", ...
    type: str | None = None  # "a100", "1g.10gb"; None when untyped
    count: int | None = None  # None when Slurm printed none
    indices: tuple[int, ...] | None = None  # from (IDX:...); None when not given, () for IDX:N/A or IDX:
    sockets: tuple[int, ...] | None = None  # from (S:...)

    @property
    def mig_profile(self) -> str | None:
        """The MIG profile a GRES type names (``1g.10gb``, ``nvidia_a100_3g.20gb``), else None."""
        return mig_profile(self.type)


def mig_profile(gres_type: str | None) -> str | None:
    if not gres_type:
        return None
    p = normalise_profile_name(gres_type)
    return p if _MIG.fullmatch(p) else None


def split_top(text: str) -> list[str]:
    """Split at commas outside parentheses: ``gpu:2(IDX:0,2),mps:0`` -> two items."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_indices(text: str, what: str = "IDX") -> tuple[int, ...]:
    """``0-1,3`` -> (0, 1, 3); ``N/A`` or nothing -> ()."""
    t = text.strip()
    if t.lower() in _NULL:
        return ()
    out: list[int] = []
    for part in t.split(","):
        indices = index_range(part, 4096)
        if indices is None:
            raise SlurmError(f"GRES {what} list {text!r}: cannot read {part!r}")
        if not indices:
            raise SlurmError(f"GRES {what} list {text!r}: bad range {part!r}")
        out.extend(indices)
    return tuple(out)


def _count(text: str) -> int | None:
    t = text.strip()
    if t.lower() in _NULL:
        return None
    m = _COUNT.fullmatch(t)
    if not m:
        return None
    return int(m.group(1)) * _MULT[m.group(2).upper()]


def parse_item(text: str) -> GresItem:
    """One GRES: ``name[:type][:count][(S:..)][(IDX:..)]``; a bare second field that is a number is the count."""
    text = re.sub(r"\(null\)", "null", text, flags=re.IGNORECASE)  # mps:(null):1(IDX:0): a type Slurm lacks
    head, _, rest = text.partition("(")
    indices = sockets = None
    for group in re.findall(r"\(([^()]*)\)", "(" + rest if rest else ""):
        key, _, value = group.partition(":")
        if key.strip().upper() == "IDX":
            indices = parse_indices(value)
        elif key.strip().upper() == "S":
            sockets = parse_indices(value, "socket")
    fields = head.strip().split(":")
    name = fields[0].strip().lower()
    if not name or not re.fullmatch(r"[a-z0-9_./-]+", name):
        raise SlurmError(f"cannot read GRES {text!r}")
    gtype: str | None = None
    count: int | None = 1
    if len(fields) == 2:
        if _COUNT.fullmatch(fields[1].strip()) or fields[1].strip().lower() in _NULL:
            count = _count(fields[1])
        else:
            gtype = fields[1].strip()
    elif len(fields) >= 3:
        gtype = ":".join(fields[1:-1]).strip()
        count = _count(fields[-1])
        if count is None and fields[-1].strip().lower() not in _NULL:
            raise SlurmError(f"cannot read the count of GRES {text!r}")
    if gtype is not None and gtype.lower() in _NULL:
        gtype = None
    return GresItem(name, gtype, count, indices, sockets)


def parse_gres(text: str | None) -> tuple[GresItem, ...]:
    """A node's or a job's GRES list; ``(null)``, ``N/A`` and empty give ()."""
    if text is None or text.strip().lower() in _NULL:
        return ()
    return tuple(parse_item(p) for p in split_top(text.strip()))


def parse_tres_gres(text: str | None) -> tuple[GresItem, ...]:
    """The GRES of a job's TRES request: ``gres:gpu:a100:2`` (22.05), ``gres/gpu:a100=2``, ``gres/gpu=2``;
    other TRES (``cpu=1``, ``mem=4G``) are left out."""
    if text is None or text.strip().lower() in _NULL:
        return ()
    out = []
    for part in split_top(text.strip()):
        low = part.lower()
        if low.startswith("gres:") or low.startswith("gres/"):
            body = part[5:]
            if "=" in body:
                spec, _, n = body.partition("=")
                body = f"{spec}:{n}"
            out.append(parse_item(body))
    return tuple(out)


def gres_text(item: GresItem) -> str:
    """Back to Slurm's request form: ``gpu:a100:2``, ``mps:50``."""
    parts = [item.name] + ([item.type] if item.type else []) + ([str(item.count)] if item.count is not None else [])
    return ":".join(parts)
