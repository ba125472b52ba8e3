"""Options of the commands that read a source: `--fields` (a header-less CSV log's field list), `--telemetry`."""

from __future__ import annotations

import argparse
import re

_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")

FIELDS_HELP = (
    "for a header-less --query-gpu CSV (--format=csv,noheader): its field list as given to --query-gpu, "
    "e.g. --fields timestamp,index,name,utilization.gpu"
)


def field_list(text: str) -> list[str]:
    """'index, name,uuid' -> ['index', 'name', 'uuid']; an empty or malformed list is a usage error."""
    names = [n.strip() for n in text.split(",")]
    bad = [n for n in names if not _FIELD.match(n)]
    if not names or bad:
        shown = repr(bad[0])[:60] if bad else "''"
        raise argparse.ArgumentTypeError(f"{shown} is not a --query-gpu field name (expected index,name,...)")
    return names


def add_fields_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fields", type=field_list, metavar="LIST", help=FIELDS_HELP)


def add_telemetry_option(p: argparse.ArgumentParser) -> None:
    """`--telemetry ssh`: with the Slurm source, read each node's GPUs over SSH (docs/ssh.md)."""
    p.add_argument(
        "--telemetry",
        choices=("ssh",),
        help="with the Slurm source: read each Slurm node's GPU values over SSH and show them with Slurm's jobs",
    )
