"""The `gputui` command: the dashboard by default, subcommands for one-shot work.

Each subcommand lives in its own module with ``add_parser(subparsers)`` and ``run(args) -> int``;
heavy imports (textual, NVML) happen inside ``run`` so that quick commands start quickly.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from gputui import __version__
from gputui.core.errors import GputuiError

# subcommand name -> module under gputui.cli
SUBCOMMANDS = {
    "ui": "ui_cmd",
    "snapshot": "snapshot_cmd",
    "mig": "mig.command",
    "plan": "plan_cmd",
    "record": "record_cmd",
    "mps": "mps_cmd",
    "submit": "jobs.submit",
    "cancel": "jobs.cancel",
    "queue": "jobs.queue",
    "explain": "jobs.explain",
    "export": "export_cmd",
    "serve": "serve_cmd",
    "completion": "completion_cmd",
    "simulate": "simulate.command",
    "idle": "idle.command",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that subcommand (the others' modules are not imported:
    the dashboard starts faster)."""
    p = argparse.ArgumentParser(prog="gputui", description="A terminal cockpit for GPU machines and clusters.")
    p.add_argument("--version", action="version", version=f"gputui {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            mod = importlib.import_module(f"gputui.cli.{module}")
        except ModuleNotFoundError as e:
            if e.name == f"gputui.cli.{module}":
                continue  # a subcommand not built yet
            raise
        mod.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; everything it prints as text passes the sanitiser (see plain_output.py)."""
    from gputui.cli.plain_output import plain_streams

    with plain_streams():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if not args_in or (args_in[0] not in SUBCOMMANDS and args_in[0] not in ("-h", "--help", "--version")):
        args_in = ["ui", *args_in]  # `gputui [SOURCE] [options]` opens the dashboard
    if args_in[0] == "ui":
        from gputui.ui.collector import collector_paused

        with collector_paused():  # the dashboard's start-up, until its first frame (see gputui/ui/collector.py)
            return _run(args_in)
    return _run(args_in)


def _run(args_in: list[str]) -> int:
    parser = build_parser(args_in[0] if args_in[0] in SUBCOMMANDS else None)
    try:
        args = parser.parse_args(args_in)
        from gputui.cli.config_file import apply_config, load_config

        config, problem = load_config()
        if problem:
            print(f"gputui: {problem}", file=sys.stderr)
        apply_config(args, config)
        return int(args.run(args) or 0)
    except GputuiError as e:
        print(f"gputui: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
