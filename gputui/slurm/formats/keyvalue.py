"""``scontrol show node`` / ``scontrol show job -d`` text: records of ``Key=value`` words, read without guessing.

A record starts at an unindented ``NodeName=`` / ``JobId=`` line and ends at a blank line. Values with spaces
are the hard part: a few keys (``Command=``, ``Reason=``, ``OS=``, ...) always take the rest of their line;
elsewhere a word without ``=`` continues the previous value. The indented ``Nodes=... GRES=...`` lines of
``-d`` output are kept apart, one dict each, since every one repeats the same keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gputui.slurm.errors import SlurmError

#: Keys whose value runs to the end of the line when they start it (Slurm prints them alone on a line).
REST_OF_LINE = frozenset({
    "Command", "WorkDir", "StdErr", "StdIn", "StdOut", "Reason", "Comment", "AdminComment", "SystemComment",
    "OS", "Features", "AvailableFeatures", "ActiveFeatures", "Extra", "BurstBuffer", "Power", "Container",
})  # fmt: skip
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_/:.\-]*)=")
_EMPTY = ("no jobs in the system", "no nodes in the system", "no partitions in the system")


@dataclass
class Record:
    """One node or job: its keys, and the per-node detail lines of ``-d`` output."""

    fields: dict[str, str] = field(default_factory=dict)
    details: list[dict[str, str]] = field(default_factory=list)

    def get(self, key: str) -> str | None:
        """The value, or None for an absent key or Slurm's ``(null)`` / ``N/A`` / empty."""
        v = self.fields.get(key)
        if v is None:
            return None
        v = v.strip()
        return None if v in ("", "(null)", "N/A", "n/a") else v


def parse_line(line: str, into: dict[str, str]) -> None:
    """Add the ``Key=value`` words of one line to ``into``."""
    text = line.strip()
    m = _KEY.match(text)
    if m and m.group(1) in REST_OF_LINE:
        into[m.group(1)] = text[m.end() :]
        return
    last: str | None = None
    for word in text.split():
        m = _KEY.match(word)
        if m:
            last = m.group(1)
            into[last] = word[m.end() :]
        elif last is not None:
            into[last] += " " + word
        else:
            raise SlurmError(f"cannot read scontrol output near {text[:60]!r}")


def parse_records(text: str, first_key: str, command: str) -> list[Record]:
    """Every record of ``text``; ``first_key`` is ``NodeName`` or ``JobId``; ``command`` names the source in errors."""
    records: list[Record] = []
    current: Record | None = None
    for raw in text.splitlines():
        if not raw.strip():
            current = None
            continue
        if not raw[0].isspace():
            if raw.strip().lower().rstrip(".") in _EMPTY:
                continue
            if not raw.startswith(first_key + "="):
                raise SlurmError(f"{command}: unexpected output {raw.strip()[:60]!r}")
            current = Record()
            records.append(current)
            parse_line(raw, current.fields)
            continue
        if current is None:
            raise SlurmError(f"{command}: a continuation line outside any record: {raw.strip()[:60]!r}")
        if raw.strip().startswith("Nodes=") and first_key == "JobId":
            detail: dict[str, str] = {}
            parse_line(raw, detail)
            current.details.append(detail)
        else:
            parse_line(raw, current.fields)
    return records
