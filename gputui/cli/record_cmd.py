"""`gputui record [SOURCE] -o FILE [--interval S] [--duration D]`: record headless until stopped."""

from __future__ import annotations

import argparse
import sys

from gputui.cli.fields_opt import add_fields_option, add_telemetry_option
from gputui.cli.source_factory import SOURCE_HELP

DEFAULT_INTERVAL = 2.0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "record",
        help="record snapshots and events to a file, without the dashboard, until Ctrl-C / SIGTERM",
        description="Record headless. A live source is polled every --interval; a recording or nvidia-smi log "
        "is re-recorded frame by frame (this converts a log into a gputui recording). An existing FILE is "
        "continued. SIGTERM or Ctrl-C closes the file cleanly.",
    )
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: live NVML")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the recording to write or continue")
    p.add_argument(
        "--interval",
        metavar="S",
        help=f"seconds between polls of a live source (default {DEFAULT_INTERVAL:g}); for a replay, "
        "one frame per S seconds instead of as fast as possible",
    )
    p.add_argument("--duration", metavar="D", help="stop after D (90s, 5m, 1h30m) of recorded time")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    add_fields_option(p)
    add_telemetry_option(p)
    p.set_defaults(run=run)


def _seconds(text: str | None, option: str) -> float | None:
    from gputui.core.errors import GputuiError
    from gputui.core.timefmt import parse_duration

    if text is None:
        return None
    value = parse_duration(text)
    if value <= 0:
        raise GputuiError(f"{option} {text}: must be more than 0 seconds")
    return value


def run(args: argparse.Namespace) -> int:
    from gputui import __version__
    from gputui.cli.source_factory import open_source
    from gputui.core.errors import NvmlUnavailable
    from gputui.record_loop import StopSignal, record
    from gputui.recorder import Recorder
    from gputui.sources.replay import ReplaySource

    interval = _seconds(args.interval, "--interval")
    duration = _seconds(args.duration, "--duration")
    try:
        opened = open_source(args.source or "nvml", fields=args.fields, interval=interval, telemetry=args.telemetry)
    except NvmlUnavailable as e:
        if args.source is not None:
            raise
        raise NvmlUnavailable(f"{e}; name a SOURCE to record instead ({SOURCE_HELP})") from None
    source = opened.source

    def say(line: str) -> None:
        if not args.quiet:
            print(f"gputui: {line}", file=sys.stderr, flush=True)

    if opened.notice:
        say(opened.notice)
    recorder = Recorder(args.output, meta={"source": source.description, "recorded_by": f"gputui {__version__}"})
    stop = StopSignal()
    restore = stop.install()
    if not isinstance(source, ReplaySource):
        every = f"every {interval or DEFAULT_INTERVAL:g} s"
    else:
        every = "frame by frame" + (f", one every {interval:g} s" if interval else "")

    def on_frame(n: int, _snap: object) -> None:
        if n == 1:
            more = f", continuing its {recorder.existing_frames} frames" if recorder.existing_frames else ""
            say(f"recording {source.description} to {args.output} {every}{more}; Ctrl-C or SIGTERM stops")

    try:
        recorder.start()
        stats = record(
            source,
            recorder,
            stop,
            interval=interval,
            duration=duration,
            default_interval=DEFAULT_INTERVAL,
            on_frame=on_frame,
        )
    finally:
        recorder.close()
        restore()
        stop.close()
        source.close()
    why = f" (stopped by {stop.signal_name})" if stop.signal_name else ""
    if isinstance(source, ReplaySource):
        for warning in getattr(source.store, "warnings", ()):
            say(warning)
    skipped = f", skipped {stats.skipped} damaged frames" if stats.skipped else ""
    say(f"wrote {stats.frames} frames and {stats.events} events to {args.output}{why}{skipped}")
    return 0
