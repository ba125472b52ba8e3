"""`gputui [SOURCE]`: the dashboard."""

from __future__ import annotations

import argparse

from gputui.sources.factory import SOURCE_HELP


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ui", help="the dashboard (the default command)")
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument("--readonly", action="store_true", help="hide every action that changes something")
    p.add_argument("--theme", metavar="NAME", help="colour theme: gputui-dark (default), gputui-light, gputui-contrast")
    p.add_argument("--interval", type=float, default=1.0, metavar="S", help="seconds between polls (default 1)")
    p.add_argument("--paused", action="store_true", help="start a replay paused on its first frame (default: playing)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.core.errors import GputuiError
    from gputui.sources.factory import open_source
    from gputui.sources.replay import ReplaySource

    if args.interval <= 0:
        raise GputuiError(f"--interval {args.interval:g}: must be more than 0 seconds")
    opened = open_source(args.source)
    if isinstance(opened.source, ReplaySource) and not args.paused:
        opened.source.play()
    from gputui.ui.app import create_app

    app = create_app(
        opened.source, readonly=args.readonly, theme=args.theme, notice=opened.notice, poll_interval=args.interval
    )
    try:
        app.run()
    finally:
        opened.source.close()
    return int(app.return_code or 0)
