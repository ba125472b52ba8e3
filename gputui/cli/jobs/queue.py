"""`gputui queue [--json]`: the queue like squeue (JOBID NAME USER ST TIME NODES NODELIST(REASON)) plus granularity."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from gputui.cli.fields_opt import add_fields_option

STATE_WORDS = {"PD": "PENDING", "R": "RUNNING", "CD": "COMPLETED", "F": "FAILED", "CA": "CANCELLED"}


def _states(text: str) -> list[str] | None:
    from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING

    known = (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED)
    out = []
    for part in text.split(","):
        p = part.strip().upper()
        if p == "ALL":
            return None
        p = STATE_WORDS.get(p, p)
        if p not in known:
            raise argparse.ArgumentTypeError(f"unknown state {part!r} (use {', '.join(known)}, their codes, or all)")
        out.append(p)
    return out


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("queue", help="list jobs like squeue (pending and running; --all for finished ones too)")
    p.add_argument("--source", help="the cluster whose queue to show (default: as the dashboard)")
    p.add_argument("--json", action="store_true", help="print the jobs as JSON")
    p.add_argument("-a", "--all", action="store_true", help="include finished jobs")
    p.add_argument("-t", "--states", type=_states, help="states to show: PD,R,CD,F,CA (or all)")
    p.add_argument("-u", "--user", help="only this user's jobs")
    p.add_argument(
        "--watch",
        action="store_true",
        help="keep scheduling and redraw every second until Ctrl-C: the queue's agent while no dashboard runs "
        "(a replay plays in real time meanwhile)",
    )
    add_fields_option(p)
    p.set_defaults(run=run)


def job_data(rec: Any, now: float) -> dict[str, Any]:
    """One job as plain JSON data."""
    from gputui.core.serialize import to_data

    return {
        "id": rec.id, "name": rec.display_name, "user": rec.user, "uid": rec.uid, "state": rec.state,
        "reason": None if rec.reason in ("", "None") else rec.reason,
        "granularity": rec.granularity, "nodes": rec.node_count, "nodelist": rec.nodelist,
        "allocation_text": rec.allocation_text,
        "allocation": None if rec.allocation is None else to_data(rec.allocation),
        "options": rec.options, "command": list(rec.command), "script": rec.script_path, "priority": rec.priority,
        "submit_time": rec.submit_time, "start_time": rec.start_time, "end_time": rec.end_time,
        "elapsed_s": rec.elapsed(now), "time_limit_s": rec.time_limit_s, "exit_code": rec.exit_code,
        "end_reason": rec.end_reason, "runner": rec.runner, "stdout": rec.stdout_path, "stderr": rec.stderr_path,
    }  # fmt: skip


def table(records: list[Any], now: float) -> list[str]:
    from gputui.jobs.describe import clock_text

    lines = [f"{'JOBID':>8} {'NAME':<12} {'USER':<8} {'ST':>2} {'TIME':>10} {'NODES':>5} {'GRAN':<6} NODELIST(REASON)"]
    for r in records:
        where = r.allocation_text if r.allocation is not None else f"({r.reason})"
        if r.ended and r.allocation is None:
            where = f"({r.end_reason or r.state.lower()})"
        lines.append(
            f"{r.id:>8} {r.display_name[:12]:<12} {r.user[:8]:<8} {r.state_code:>2} {clock_text(r.elapsed(now)):>10} "
            f"{r.node_count:>5} {r.granularity:<6} {where}"
        )
    return lines


def render(service: Any, args: argparse.Namespace) -> str:
    from gputui.jobs.records import PENDING, RUNNING

    states = args.states if args.states is not None else (None if args.all else [PENDING, RUNNING])
    records = service.list(states, user=args.user)
    now = service.now()
    if args.json:
        return json.dumps({"cluster": service.cluster, "clock": now, "jobs": [job_data(r, now) for r in records]})
    return "\n".join(table(records, now))


def watch(
    session: Any,
    args: argparse.Namespace,
    interval: float = 1.0,
    iterations: int | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll the source, run a pass, redraw; ``iterations`` None: until interrupted."""
    from gputui.cli.plain_output import terminal
    from gputui.sources.replay import ReplaySource

    if isinstance(session.source, ReplaySource):
        session.source.play()
    clear = "\x1b[H\x1b[2J" if sys.stdout.isatty() else ""
    n = 0
    while iterations is None or n < iterations:
        result = session.service.tick(session.source.poll())
        note = f"\ngputui: {result.error}" if result.error else ""
        owner = "" if result.owner else " (another gputui schedules this queue)"
        if clear:
            terminal(sys.stdout).write(clear)  # the one deliberate control sequence; the rest is sanitised
        print(f"{session.service.cluster}{owner}\n{render(session.service, args)}{note}", flush=True)
        n += 1
        if iterations is None or n < iterations:
            sleep(interval)


def run(args: argparse.Namespace) -> int:
    from gputui.cli.job_session import open_session

    session = open_session(args.source, fields=args.fields)
    try:
        if not args.json:
            session.say_notice()
        if args.watch:
            watch(session, args)
        else:
            print(render(session.service, args))
        return 0
    finally:
        session.close()
