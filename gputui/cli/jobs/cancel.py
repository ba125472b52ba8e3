"""`gputui cancel JOBID...`: cancel jobs; running ones get SIGTERM, then SIGKILL after a grace period."""

from __future__ import annotations

import argparse
import sys
import time

from gputui.cli.fields_opt import add_fields_option


def job_id(text: str) -> int:
    t = text.strip()
    if not t.isdigit():
        raise argparse.ArgumentTypeError(f"not a job id: {text!r}")
    return int(t)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cancel", help="cancel jobs (pending ones leave the queue, running ones are stopped)")
    p.add_argument("--source", help="the cluster whose queue holds the jobs (default: as the dashboard)")
    p.add_argument("--no-wait", action="store_true", help="do not wait for running jobs to stop")
    p.add_argument("jobs", nargs="+", type=job_id, metavar="JOBID")
    add_fields_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.cli.job_session import open_session
    from gputui.core.errors import GputuiError
    from gputui.jobs.service import JobService

    session = open_session(args.source, fields=args.fields)
    failed = 0
    said = False
    stopping: list[int] = []
    try:
        service = session.service
        for jid in dict.fromkeys(args.jobs):
            try:
                rec = service.cancel(jid)
            except GputuiError as e:
                print(f"gputui: {e}", file=sys.stderr)
                failed += 1
                continue
            if not said:  # what kind of queue this is, once, with the first answer
                session.say_notice()
                said = True
            if rec.running:
                stopping.append(jid)
            else:
                print(f"job {jid} cancelled")
        if stopping and isinstance(service, JobService) and service.owner:
            # one pass sends the signals; wait out the grace period so that the store holds the end
            grace = getattr(service.runner, "grace_s", 0.0)
            deadline = time.monotonic() + (0.0 if args.no_wait else grace + 2.0)
            while True:
                if service.runner.kind == "local":
                    service.tick(session.source.poll())
                else:
                    session.tick()
                left = [j for j in stopping if (r := service.store.get(j)) is not None and r.running]
                if not left or time.monotonic() >= deadline:
                    break
                time.sleep(0.1)
            for jid in stopping:
                done = service.store.get(jid)
                assert done is not None
                print(f"job {jid} {'is stopping' if done.running else done.state.lower()}")
        elif service.kind == "slurm":
            for jid in stopping:
                print(f"job {jid}: scancel sent; Slurm stops it")
        else:
            for jid in stopping:
                print(f"job {jid}: cancel requested; the gputui that owns the queue stops it")
    finally:
        session.close()
    return 1 if failed else 0
