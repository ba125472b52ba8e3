"""`gputui export [SOURCE]`: a Prometheus endpoint with dcgm-exporter's names, or with --openmetrics a backfill file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gputui.cli.source_factory import SOURCE_HELP

DEFAULT_LISTEN = "127.0.0.1:9400"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "export",
        help="serve /metrics for Prometheus (dcgm-exporter names, job labels), or write a backfill file",
        description="Serve GET /metrics in the Prometheus text format: GPU metrics under dcgm-exporter's names "
        "and labels, with the job, job name and user holding each GPU, MIG instance and MPS client, and gputui_ "
        "metrics of the queue, MPS and MIG room. Listens on 127.0.0.1 unless --listen names another address. "
        "With --openmetrics FILE, writes a recording or nvidia-smi log as OpenMetrics with timestamps instead, for "
        "promtool tsdb create-blocks-from openmetrics.",
    )
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument(
        "--listen",
        default=DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"address to serve on (default {DEFAULT_LISTEN}; another host only when given here)",
    )
    p.add_argument("--interval", type=float, default=1.0, metavar="S", help="seconds between polls (default 1)")
    p.add_argument("--at", metavar="TIME", help="a replay starts at TIME (start, +5m, -1h, HH:MM, ...) and plays on")
    p.add_argument("--paused", action="store_true", help="a replay stays on its starting frame")
    p.add_argument("--no-jobs", action="store_true", help="do not open the job queue (no queue metrics from it)")
    p.add_argument("--openmetrics", metavar="FILE", help="write the replay as OpenMetrics to FILE (new) and exit")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.core.errors import GputuiError

    if args.interval <= 0:
        raise GputuiError(f"--interval {args.interval:g}: must be more than 0 seconds")
    if args.openmetrics is not None:
        return _backfill(args)
    from gputui.export.server import is_loopback, parse_listen

    host, port = parse_listen(args.listen)
    from gputui.cli.source_factory import open_source
    from gputui.sources.replay import ReplaySource

    opened = open_source(args.source)
    source = opened.source
    try:
        if args.at is not None and not isinstance(source, ReplaySource):
            raise GputuiError("--at needs a recording or a log; a live source has only the present")
        return _serve(args, source, host, port, opened.notice, not is_loopback(host))
    finally:
        source.close()


def _position(source, jobs, at: str | None, paused: bool) -> None:  # type: ignore[no-untyped-def]
    """Where a replay starts: ``at``, else where its queue's clock is (as the dashboard opens), else its start."""
    from gputui.core.timefmt import parse_time
    from gputui.jobs.service import JobService

    if at is not None:
        source.seek(parse_time(at, source.start_time, source.end_time))
    elif isinstance(jobs, JobService) and jobs.clock.simulated:
        source.seek(jobs.clock.resume_at(source.start_time))
    if not paused:
        source.play()


def _serve(args: argparse.Namespace, source, host: str, port: int, notice: str | None, exposed: bool) -> int:  # type: ignore[no-untyped-def]
    from gputui.core.errors import GputuiError
    from gputui.core.plain_text import sanitise
    from gputui.export.collector import FrameCollector
    from gputui.export.feed import ExportFeed, run_feed
    from gputui.export.server import start_server
    from gputui.record_loop import StopSignal

    jobs = None
    if not args.no_jobs:
        from gputui.cli.job_session import open_service

        try:
            jobs = open_service(args.source, source)
        except GputuiError as e:
            notice = "; ".join(n for n in (notice, f"jobs are unavailable: {e}") if n)
    from gputui.sources.replay import ReplaySource

    if isinstance(source, ReplaySource):
        _position(source, jobs, args.at, args.paused)
    collector = FrameCollector()
    feed = ExportFeed(source, jobs)
    stop = StopSignal()
    try:
        collector.update(feed.frame())  # the first scrape already has a frame
        server = start_server(host, port, collector)
        bound_port = server.server_address[1]
        where = f"[{host}]" if ":" in host else host
        if notice:
            print(f"gputui export: {sanitise(notice)}", file=sys.stderr)
        if exposed:
            print(
                f"gputui export: listening on {where}:{bound_port}, not only this machine: anyone who reaches it "
                "reads GPU, job, job-name and user names",
                file=sys.stderr,
            )
        print(f"gputui export: serving http://{where}:{bound_port}/metrics (Ctrl-C stops)", flush=True)
        restore = stop.install()
        try:
            run_feed(feed, collector, stop, interval=args.interval, on_error=_poll_failed)
        finally:
            restore()
            server.shutdown()
            server.server_close()
    finally:
        stop.close()
        if jobs is not None:
            jobs.close()
    return 0


def _poll_failed(message: str) -> None:
    from gputui.core.plain_text import sanitise

    print(f"gputui export: poll failed, still serving the last frame: {sanitise(message)}", file=sys.stderr)


def _backfill(args: argparse.Namespace) -> int:
    from gputui.cli.source_factory import open_source
    from gputui.core.errors import GputuiError
    from gputui.export.openmetrics import write_openmetrics
    from gputui.sources.replay import ReplaySource

    if args.source is None:
        raise GputuiError("--openmetrics needs a recording or an nvidia-smi log as SOURCE")
    out = Path(args.openmetrics)
    if out.exists():
        raise GputuiError(f"--openmetrics {out}: already exists; remove it or name a new file")
    if not out.parent.is_dir():
        raise GputuiError(f"--openmetrics {out}: no such directory {out.parent}")
    opened = open_source(args.source)
    try:
        if not isinstance(opened.source, ReplaySource):
            raise GputuiError("--openmetrics needs a recording or an nvidia-smi log; a live source has no history")
        try:
            stats = write_openmetrics(opened.source, out)
        except FileExistsError:
            raise GputuiError(f"--openmetrics {out}: appeared while writing; left as it is") from None
        except OSError as e:
            raise GputuiError(f"--openmetrics {out}: {e.strerror or e}") from None
    finally:
        opened.source.close()
    print(f"gputui export: wrote {stats.frames} frames, {stats.samples} samples in {stats.families} families to {out}")
    return 0
