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
    p.add_argument("--record", metavar="FILE", help="record the session shown (every frame and event) into FILE")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.core.errors import GputuiError
    from gputui.sources.factory import open_source
    from gputui.sources.replay import ReplaySource

    if args.interval <= 0:
        raise GputuiError(f"--interval {args.interval:g}: must be more than 0 seconds")
    if args.record is not None:
        from gputui.ui.record_controls import check_record_path

        problem = check_record_path(args.record)
        if problem is not None:
            raise GputuiError(f"--record {args.record}: {problem}")
    opened = open_source(args.source)
    if isinstance(opened.source, ReplaySource) and not args.paused:
        opened.source.play()
    from gputui.jobs.session import open_service
    from gputui.ui.app import create_app

    service, note = None, None
    try:
        service = open_service(args.source, opened.source)
    except GputuiError as e:  # the dashboard runs on, without jobs
        note = f"jobs are unavailable: {e}"
    try:
        app = create_app(
            opened.source,
            readonly=args.readonly,
            theme=args.theme,
            notice=opened.notice if note is None else "; ".join(n for n in (opened.notice, note) if n),
            poll_interval=args.interval,
            jobs_service=service,
            jobs_note=note,
            record=args.record,
        )
        app.run()
    finally:
        if service is not None:
            service.close()
        opened.source.close()
    return int(app.return_code or 0)
