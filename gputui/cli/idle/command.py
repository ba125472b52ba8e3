"""`gputui idle [SOURCE] [--json] [--threshold PCT] [--window DURATION] [--at TIME]`: the GPUs (whole, MIG
instances, MPS shares) a job holds while doing nothing, for scripts and cron. On a recording it judges the window
ending at --at (default: its end); on a live source it watches for one window, then answers."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gputui.cli.fields_opt import add_fields_option, add_telemetry_option
from gputui.cli.source_factory import SOURCE_HELP
from gputui.core.timefmt import TIME_HELP

if TYPE_CHECKING:
    from gputui.core.model import ClusterSnapshot
    from gputui.dashboard.radar.evaluate import Verdict
    from gputui.dashboard.radar.watch import RadarWatch
    from gputui.jobs.backend import JobBackend
    from gputui.jobs.records import JobRecord
    from gputui.sources.base import Source
    from gputui.sources.replay import ReplaySource

Records = Callable[["ClusterSnapshot"], Sequence["JobRecord"]]


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("idle", help="list GPUs held by a job but idle (under a utilisation threshold for a window)")
    p.add_argument("source", nargs="?", help=f"{SOURCE_HELP}; default: NVML, else the demo")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--threshold", metavar="PCT", help="idle below this utilisation, per cent (default 5, or [idle])")
    p.add_argument("--window", metavar="DURATION", help="for at least this long (default 10m, or [idle])")
    p.add_argument("--at", metavar="TIME", help=f"for a recording or log: the window's end, {TIME_HELP} (default: end)")
    p.add_argument(
        "--lookback", metavar="DURATION", help="for a recording: how far before --at to read (default: two windows); "
        "'idle for' counts back at most this far",
    )  # fmt: skip
    p.add_argument("--interval", metavar="SECONDS", default="1", help="for a live source: seconds between polls")
    p.add_argument("--no-jobs", action="store_true", help="do not open the job queue (holders from processes only)")
    p.add_argument(
        "--advise", action="store_true", help="also say, for each held whole GPU or MIG instance watched for a "
        "window, the smaller unit that would have served it (peak memory and SM activity), as a Slurm request",
    )  # fmt: skip
    add_fields_option(p)
    add_telemetry_option(p)
    p.set_defaults(run=run)


def _threshold(text: str) -> int:
    from gputui.core.errors import GputuiError

    t = text.strip().rstrip("%").strip()
    if not t.isdigit() or not 1 <= int(t) <= 100:
        raise GputuiError(f"--threshold {text}: a whole per cent from 1 to 100")
    return int(t)


def _duration(option: str, text: str, minimum: float = 0.0) -> float:
    from gputui.core.errors import GputuiError, TimeFormatError
    from gputui.core.timefmt import parse_duration

    try:
        value = parse_duration(text)
    except TimeFormatError as e:
        raise GputuiError(f"{option} {e}") from None
    if value < minimum or value > 366 * 86400:
        raise GputuiError(f"{option} {text}: out of range")
    return value


def run(args: argparse.Namespace) -> int:
    from gputui.cli.source_factory import open_source
    from gputui.dashboard.radar.watch import RadarWatch
    from gputui.sources.replay import ReplaySource

    threshold = _threshold(args.threshold or "5")
    window = _duration("--window", args.window or "10m")
    interval = _duration("--interval", args.interval, 0.05)
    lookback = None if args.lookback is None else _duration("--lookback", args.lookback)
    opened = open_source(args.source, fields=args.fields, interval=interval, telemetry=args.telemetry)
    source = opened.source
    notes = [opened.notice] if opened.notice else []
    watch = RadarWatch(threshold, window)
    sizing = None
    if args.advise:
        from gputui.core.idle.advice import Sizing

        sizing = Sizing()
        watch.observer = sizing.observe
    try:
        if isinstance(source, ReplaySource):
            verdict, at = _on_recording(source, watch, args.at, window, lookback, notes)
        else:
            verdict, at = _on_live(args, source, watch, window, interval, notes)
    finally:
        source.close()
    for warning in getattr(getattr(source, "store", None), "warnings", ()):
        notes.append(warning)
    for note in notes:
        print(f"gputui: {note}", file=sys.stderr)
    advice = sizing.advice(window) if sizing is not None else None
    if args.json:
        data = _data(verdict, at, source.description, watch)
        if advice is not None:
            from gputui.core.idle.advice import room_after

            data["advice"] = [_advice_data(a) for a in advice]
            rooms = room_after(verdict.snapshot, advice) if verdict.snapshot is not None else []
            data["room"] = [{"node": r.node, "gpu": r.gpu, "now": list(r.now), "then": list(r.then)} for r in rooms]
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
    else:
        for line in _lines(verdict, watch):
            print(line)
        if advice is not None:
            for line in _advice_lines(advice, window, verdict.snapshot):
                print(line)
    return 0


def _advice_lines(advice: Sequence[Any], window: float, snap: ClusterSnapshot | None) -> list[str]:
    from gputui.core.idle.advice import advice_line, room_after
    from gputui.core.plain_text import sanitise
    from gputui.dashboard.radar.rows import duration_text

    watched = list(advice)
    if not watched:
        return [f"advice: no held GPU or MIG instance was watched for {duration_text(window)} with its activity known"]
    lines = ["", "right-sizing (peak memory and SM activity while held; headroom 25 % SM, 10 % memory):"]
    lines += ["  " + sanitise(advice_line(a, duration_text(a.watched_s))) for a in watched]
    smaller = [a for a in watched if a.suggest]
    if smaller:
        slices = sum(a.freed_compute_slices for a in smaller)
        mib = sum(a.freed_memory_mib for a in smaller)
        lines.append(f"  asking for these would have left {slices} compute slice{'s' if slices != 1 else ''} and "
                     f"{mib / 1024:.1f} GiB free for other jobs")  # fmt: skip
    for r in room_after(snap, list(advice)) if snap is not None else ():
        now = ", ".join(r.now) or "nothing"
        then = ", ".join(r.then) or "nothing"
        lines.append(f"  {sanitise(r.node)} GPU {r.gpu}: room for {then} (now: {now}), by the MIG placement tables")
    return lines


def _advice_data(a: Any) -> dict[str, Any]:
    return {
        "node": a.key.node,
        "gpu": a.key.gpu,
        "unit": a.key.kind,
        "unit_ref": a.key.ref or None,
        "job": a.holder.job_id,
        "user": a.holder.user,
        "held": a.held,
        "watched_s": a.watched_s,
        "peak_memory_mib": a.peak_memory_mib,
        "peak_sm_percent": a.peak_sm,
        "sm_basis": a.basis,
        "suggest": a.suggest,
        "mps_percent": a.mps_percent,
        "slurm": a.slurm,
        "freed_compute_slices": a.freed_compute_slices,
        "freed_memory_mib": a.freed_memory_mib,
    }


def _on_recording(
    source: ReplaySource,
    watch: RadarWatch,
    at_text: str | None,
    window: float,
    lookback: float | None,
    notes: list[str],
) -> tuple[Verdict, float]:
    from gputui.cli.source_factory import snapshot_at
    from gputui.core.timefmt import utc_text
    from gputui.dashboard.radar.evaluate import evaluate_replay

    at = snapshot_at(source, at_text).timestamp if at_text is not None else source.end_time
    read = 2 * window if lookback is None else max(lookback, window)
    verdict = evaluate_replay(source, watch, at, read)
    if at - source.start_time < window:
        notes.append(f"the recording starts {utc_text(source.start_time)}, less than the window before "
                     f"{utc_text(at)}: nothing can have been idle that long")  # fmt: skip
    return verdict, at


def _on_live(
    args: argparse.Namespace, source: Source, watch: RadarWatch, window: float, interval: float, notes: list[str]
) -> tuple[Verdict, float]:
    from gputui.core.errors import GputuiError
    from gputui.dashboard.radar.evaluate import evaluate_live

    if args.at is not None:
        raise GputuiError("--at needs a recording or a log; a live source has only the present")
    records = None
    service = None
    if not args.no_jobs:
        service, records = _queue(args.source, source, notes)
    try:
        if window > 0:
            print(f"gputui: watching {source.description} for {args.window or '10m'} ...", file=sys.stderr)
        verdict = evaluate_live(source, watch, window, interval, records)
    finally:
        if service is not None:
            service.close()
    return verdict, verdict.result.timestamp


def _queue(source_arg: str | None, source: Source, notes: list[str]) -> tuple[JobBackend | None, Records | None]:
    """The job queue's running records for each poll: Slurm's (a tick takes the source's latest poll), or the
    local queue's as its store has them (read only: nothing is scheduled)."""
    from gputui.cli.job_session import is_ssh, open_service
    from gputui.core.errors import GputuiError
    from gputui.jobs.queue_look import is_slurm
    from gputui.jobs.records import RUNNING

    if is_ssh(source):
        return None, None  # the hosts have no queue of gputui's: their processes say who holds what
    try:
        service = open_service(source_arg, source)
    except GputuiError as e:
        notes.append(f"the job queue is unavailable ({e}); holders come from processes only")
        return None, None
    slurm = is_slurm(source)

    def records(snap: ClusterSnapshot) -> Sequence[JobRecord]:
        if slurm:
            service.tick(snap)
        return tuple(service.list(states=(RUNNING,)))

    return service, records


def _lines(verdict: Verdict, watch: RadarWatch) -> list[str]:
    from gputui.dashboard.radar.rows import COLUMNS, duration_text, row_texts

    res = verdict.result
    now = res.timestamp
    idle = sorted(res.idle, key=lambda r: r.key)
    rows = [row_texts(r, now) for r in idle]
    for cells, row in zip(rows, idle, strict=True):
        if row.idle_for_s is not None and row.idle_for_s >= now - verdict.first_time - 1e-6:
            cells["idle"] = "≥" + cells["idle"]  # the run began before the first frame read
    pct, win = watch.threshold, duration_text(watch.window_s)
    if not rows:
        lines = [f"no held GPU under {pct} % for {win} (of {res.held} held units)"]
    else:
        widths = {k: max(len(t), *(len(c[k]) for c in rows)) for k, t in COLUMNS}
        lines = ["  ".join(t.upper().ljust(widths[k]) for k, t in COLUMNS).rstrip()]
        lines += ["  ".join(c[k].ljust(widths[k]) for k, _ in COLUMNS).rstrip() for c in rows]
        lines.append(f"{len(rows)} of {res.held} held units under {pct} % for at least {win}")
    if res.unknown:
        n = len(res.unknown)
        lines.append(f"{n} held unit{'s have' if n > 1 else ' has'} no utilisation reading (MIG, a busy shared GPU, "
                     "or no telemetry): not judged; --json lists them")  # fmt: skip
    return lines


def _data(verdict: Verdict, at: float, description: str, watch: RadarWatch) -> dict[str, Any]:
    from gputui.dashboard.radar.rows import row_data

    res = verdict.result
    return {
        "at": at,
        "source": description,
        "threshold_percent": watch.threshold,
        "window_s": watch.window_s,
        "read_from": verdict.first_time,
        "frames": verdict.frames,
        "held_units": res.held,
        "idle": [row_data(r) for r in sorted(res.idle, key=lambda r: r.key)],
        "unknown": [row_data(r) for r in sorted(res.unknown, key=lambda r: r.key)],
    }
