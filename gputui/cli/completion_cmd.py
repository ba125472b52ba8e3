"""`gputui completion bash|zsh|tcsh`: a shell completion script for every subcommand and option, made by shtab
from the same argparse parser the commands use (so it cannot drift from them)."""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "tcsh")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='Print a completion script. bash: eval "$(gputui completion bash)" in ~/.bashrc; '
        'zsh: gputui completion zsh > "${fpath[1]}/_gputui".',
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import shtab

    from gputui.cli import build_parser

    parser = build_parser()
    for action in _source_actions(parser):
        action.complete = shtab.FILE  # type: ignore[attr-defined]
    print(shtab.complete(parser, shell=args.shell))
    return 0


def _source_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every SOURCE / --source / -o FILE argument: completed with file names (recordings, logs)."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out += _source_actions(sub)
        elif action.dest in ("source", "output", "record", "script", "openmetrics"):
            out.append(action)
    return out
