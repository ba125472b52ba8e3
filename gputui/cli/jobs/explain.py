"""`gputui explain JOBID`: why a job waits, where it runs (and the environment it got), or how it ended."""

from __future__ import annotations

import argparse

from gputui.cli.fields_opt import add_fields_option
from gputui.cli.jobs.cancel import job_id


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="say why a job waits, where it runs, or how it ended")
    p.add_argument("--source", help="the cluster whose queue holds the job (default: as the dashboard)")
    p.add_argument("job", type=job_id, metavar="JOBID")
    add_fields_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gputui.cli.job_session import open_session

    session = open_session(args.source, fields=args.fields)
    try:
        detail = session.service.get(args.job)
        session.say_notice()
        rec = detail.record
        reason = "" if detail.reason in ("", "None") else f" ({detail.reason})"
        print(f"job {rec.id} {rec.state}{reason}: {detail.explanation}")
        print(f"  user {rec.user}, name {rec.display_name}, {rec.granularity}: {rec.request.describe()}")
        print(f"  options: {rec.options or '(none)'}")
        print(f"  command: {rec.command_text}")
        if rec.allocation is not None:
            print(f"  allocation: {rec.allocation_text}")
            for node, env in rec.environment.items():
                print(f"  environment on {node}:")
                for k in sorted(env):
                    print(f"    {k}={env[k]}")
        for label, path, text in (
            ("stdout", rec.stdout_path, detail.stdout_tail),
            ("stderr", rec.stderr_path, detail.stderr_tail),
        ):
            if path:
                print(f"  {label}: {path}")
                for line in text.splitlines()[-10:]:
                    print(f"    {line}")
        return 0
    finally:
        session.close()
