"""`gputui submit [SLURM OPTIONS] -- COMMAND...` or `gputui submit [SLURM OPTIONS] SCRIPT [ARGS]`: queue a job."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gputui.cli.fields_opt import add_fields_option

USAGE = (
    "gputui submit [--source SRC] [--test-only] [SLURM OPTIONS] -- COMMAND [ARG...]\n"
    "       gputui submit [--source SRC] [--test-only] [SLURM OPTIONS] SCRIPT [ARG...]"
)
_OWN_FLAGS = ("-h", "--help", "--test-only", "--json")


def split_own(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """gputui's own options (they come first) and the rest: Slurm options and the command or script."""
    own: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in _OWN_FLAGS or w.startswith("--source="):
            own.append(w)
            i += 1
        elif w == "--source":
            own += list(words[i : i + 2])
            i += 2
        else:
            break
    return own, list(words[i:])


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "submit",
        help="queue a job: Slurm options and a command, or a batch script with #SBATCH lines",
        usage=USAGE,
        description="Queue a job. Options are Slurm's (see `gputui plan --help`); gputui's own come first.",
    )
    p.add_argument(
        "--source", help="the cluster: a recording, an nvidia-smi log, 'nvml' or 'demo' (default: as the dashboard)"
    )
    p.add_argument(
        "--test-only", action="store_true", help="only say where the job would start now, or why it would wait"
    )
    p.add_argument("--json", action="store_true", help="with --test-only on Slurm: the answer as one JSON object")
    add_fields_option(p)
    p.set_defaults(run=run, words=[])
    parse = p.parse_known_args

    # Slurm's options are not gputui's: only the leading words are parsed here, the rest is the request.
    def lenient(args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None):  # type: ignore[no-untyped-def]
        own, rest = split_own(list(sys.argv[2:] if args is None else args))
        ns, extra = parse(own, namespace)
        ns.words = rest
        return ns, extra

    p.parse_known_args = lenient  # type: ignore[method-assign]


def run(args: argparse.Namespace) -> int:
    from gputui.cli.job_session import open_session
    from gputui.jobs.errors import JobError
    from gputui.jobs.service import JobService
    from gputui.jobs.submission import split_sbatch

    words: list[str] = args.words
    if not words:
        raise JobError("nothing to submit: give Slurm options and -- COMMAND, or a batch script")
    options, script, script_args = split_sbatch(words)
    parsable = "--parsable" in options
    session = open_session(args.source, fields=args.fields)
    try:
        service = session.service
        if args.test_only and service.kind == "slurm":
            from gputui.cli.whatif_out import slurm_whatif

            return slurm_whatif(service, options, script, args.json)
        if args.json:
            raise JobError("--json: only with --test-only on a Slurm source")
        if args.test_only:
            preview = service.preview(options, script=script)
            session.say_notice()
            print(preview.text)
            for w in preview.warnings:
                print(f"warning: {w}")
            return 0
        rec = service.submit(options, script_args if script else (), script=script)
        session.say_notice()
        session.tick()  # starts it now if it can
        detail = service.get(rec.id)
        if parsable:
            print(rec.id)
            return 0
        print(f"Submitted batch job {rec.id}")
        now = detail.record
        if now.running:
            print(f"job {rec.id} is running on {now.allocation_text}")
        elif now.pending:
            print(f"job {rec.id} is pending ({detail.reason}): {detail.explanation}")
        else:
            why = now.end_reason if now.end_reason and now.end_reason != now.state.lower() else ""
            print(f"job {rec.id} {now.state.lower()}" + (f": {why}" if why else ""))
        holder = None if service.owner or not isinstance(service, JobService) else service.store.owner(service.cluster)
        if holder is not None:
            print(f"(gputui pid {holder.pid} on {holder.host} owns this queue and schedules it)")
        return 0
    finally:
        session.close()
