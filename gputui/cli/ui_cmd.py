"""`gputui [SOURCE]`: the dashboard."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from gputui.cli.fields_opt import add_fields_option, add_telemetry_option
from gputui.cli.source_factory import SOURCE_HELP

if TYPE_CHECKING:
    from gputui.jobs.backend import JobBackend
    from gputui.sources.base import Source

Opener = Callable[[], "JobBackend"]


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ui", help="the dashboard (the default command)")
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument("--readonly", action="store_true", help="hide every action that changes something")
    p.add_argument("--theme", metavar="NAME", help="colour theme: gputui-dark (default), gputui-light, gputui-contrast")
    p.add_argument("--interval", type=float, metavar="S", help="seconds between polls (default 1)")
    p.add_argument("--paused", action="store_true", help="start a replay paused on its first frame (default: playing)")
    p.add_argument("--record", metavar="FILE", help="record the session shown (every frame and event) into FILE")
    add_fields_option(p)
    add_telemetry_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.cli.source_factory import open_source
    from gputui.core.errors import GputuiError
    from gputui.sources.replay import ReplaySource

    if args.interval is None:
        args.interval = 1.0
    if args.interval <= 0:
        raise GputuiError(f"--interval {args.interval:g}: must be more than 0 seconds")
    if args.record is not None:
        from gputui.dashboard.session.controller import check_record_path

        problem = check_record_path(args.record)
        if problem is not None:
            raise GputuiError(f"--record {args.record}: {problem}")
    opened = open_source(args.source, fields=args.fields, interval=args.interval, telemetry=args.telemetry)
    if isinstance(opened.source, ReplaySource) and not args.paused:
        opened.source.play()
    from gputui.ui.factory import create_app

    service, note, opener = _jobs_for(args.source, opened.source)
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
            jobs_opener=opener,
            hidden_columns=getattr(args, "hide_columns", ()),
            idle_radar=getattr(args, "idle_radar", (None, None)),
        )
    except BaseException:
        if service is not None:
            service.close()
        opened.source.close()
        raise
    try:
        app.run()
    finally:
        app.close_jobs()
        opened.source.close()
    return int(app.return_code or 0)


def _jobs_for(source_arg: str | None, source: Source) -> tuple[JobBackend | None, str | None, Opener | None]:
    """The job service now, or why there is none, or an opener for after the first frame: when the queue has no
    job waiting or running, the first frame cannot show any, and the job service loads after it."""
    from gputui.core.errors import GputuiError
    from gputui.jobs.queue_look import SSH_NO_JOBS, cluster_key, idle_queue, is_slurm, is_ssh
    from gputui.jobs.schema import DB_NAME
    from gputui.statedir import state_dir_path

    if is_ssh(source):
        return None, f"jobs are unavailable: {SSH_NO_JOBS}", None
    if not is_slurm(source):
        last_event = idle_queue(state_dir_path() / DB_NAME, cluster_key(source_arg, source))
        if last_event is not None:
            return None, None, partial(_open_service, source_arg, source, last_event)
    try:
        return _open_service(source_arg, source), None, None
    except GputuiError as e:  # the dashboard runs on, without jobs
        return None, f"jobs are unavailable: {e}", None


def _open_service(source_arg: str | None, source: Source, events_after: int | None = None) -> JobBackend:
    from gputui.cli.job_session import open_service

    return open_service(source_arg, source, events_after=events_after)
