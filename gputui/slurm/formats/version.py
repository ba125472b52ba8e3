"""Which Slurm answers, and whether its sinfo / squeue can speak JSON (``--json`` came with 21.08; 22.05 is
the oldest release whose JSON shapes are tested here)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gputui.slurm.errors import SlurmError

#: The oldest release whose ``--json`` output this package reads; older ones are read as scontrol text.
JSON_SINCE = (22, 5)
#: Words in a failed ``--json`` call that mean "this build cannot do JSON" rather than "the cluster is down".
NO_JSON_HINTS = ("--json", "unrecognized option", "invalid option", "serializer", "data_parser", "openapi", "plugin")


@dataclass(frozen=True, slots=True, order=True)
class SlurmVersion:
    """A release such as 22.05.8 (Slurm numbers minor releases 02, 05, 08, 11)."""

    major: int
    minor: int
    micro: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor:02d}.{self.micro}"

    @property
    def has_json(self) -> bool:
        return (self.major, self.minor) >= JSON_SINCE


def parse_version(text: str) -> SlurmVersion:
    """``slurm 22.05.8``, ``slurm-wlm 22.05.8`` (Debian) or ``slurm 24.11.0-0rc1`` to a version."""
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        line = text.strip().splitlines()[0] if text.strip() else "nothing"
        raise SlurmError(f"sinfo --version: cannot read a Slurm version from {line[:80]!r}")
    return SlurmVersion(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def means_no_json(message: str) -> bool:
    """Whether a failed ``--json`` call says the option or its plugin is missing (fall back to text)."""
    low = message.lower()
    return any(h in low for h in NO_JSON_HINTS)
