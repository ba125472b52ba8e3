"""`gputui snapshot [SOURCE] [--at TIME] [--json]`: print one snapshot like nvidia-smi does."""

from __future__ import annotations

import argparse
import sys

from gputui.cli.fields_opt import add_fields_option, add_telemetry_option
from gputui.cli.source_factory import SOURCE_HELP
from gputui.core.timefmt import TIME_HELP


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("snapshot", help="print one snapshot (GPUs, MIG devices, MPS, processes) and exit")
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument("--at", metavar="TIME", help=f"for a recording or log: {TIME_HELP} (default: the last frame)")
    p.add_argument("--json", action="store_true", help="print the snapshot as JSON instead of tables")
    p.add_argument("--node", action="append", metavar="NAME", help="only this node (repeatable)")
    p.add_argument("--wide", action="store_true", help="every column, however wide the tables get")
    add_fields_option(p)
    add_telemetry_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.cli.source_factory import open_source, snapshot_at
    from gputui.core.errors import GputuiError
    from gputui.core.numbers import cut

    opened = open_source(args.source, fields=args.fields, telemetry=args.telemetry)
    try:
        snap = snapshot_at(opened.source, args.at)
    finally:
        opened.source.close()
    unknown = [n for n in args.node or () if n not in {node.name for node in snap.nodes}]
    if unknown:
        known = ", ".join(node.name for node in snap.nodes) or "none"
        raise GputuiError(f"--node {cut(unknown[0])}: no such node (nodes: {cut(known, 200)})")
    if opened.notice:
        print(f"gputui: {opened.notice}", file=sys.stderr)
    for warning in getattr(getattr(opened.source, "store", None), "warnings", ()):
        print(f"gputui: {warning}", file=sys.stderr)  # damage the reader stepped around
    if args.json:
        from gputui.core.serialize import snapshot_to_json

        sys.stdout.write(snapshot_to_json(snap, indent=1) + "\n")
        return 0
    from gputui.cli.plain_output import terminal
    from gputui.render.smi_tables import print_snapshot

    # Text only (sanitised), written past the line sanitiser so that the tables keep their colours; drawn without
    # rich (whose import a one-shot would pay for), as rich drew it
    print_snapshot(terminal(sys.stdout), snap, args.node, wide=args.wide)
    return 0
