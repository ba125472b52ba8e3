"""`gputui mig plan [SOURCE]` and `gputui mig apply --simulate [SOURCE]`: new MIG layouts that start the waiting
MIG work while draining the least, with the nvidia-smi commands and a mig-parted configuration."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

#: What `mig plan demo` plans for when the demo's queue has no MIG job waiting (said so in its output).
DEMO_WANT = "3g.40gb:2,3g.20gb:2,2g.10gb:1"


def add_parsers(msub: argparse._SubParsersAction) -> None:
    p = msub.add_parser("plan", help="propose MIG layouts that start the waiting MIG jobs (or --want)")
    _common(p)
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--yaml", metavar="FILE", help="also write the mig-parted configuration to FILE")
    p.set_defaults(run=run_plan)
    a = msub.add_parser("apply", help="apply a plan: simulated on a replay, commands only on a live machine")
    _common(a)
    a.add_argument("--simulate", action="store_true", required=True,
                   help="required: gputui never re-slices a real GPU; on a replay the queue's jobs start in the "
                   "new layout, on a live machine the commands are printed")  # fmt: skip
    a.add_argument("--reset", action="store_true", help="a replay: give its GPUs back their recorded layouts")
    a.set_defaults(run=run_apply)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source", nargs="?", help="'demo', a recording, an nvidia-smi log or 'nvml' (default: as the dashboard)"
    )
    p.add_argument("--want", metavar="P:N,...", help="plan for this demand instead of the queue: 3g.40gb:4,1g.10gb:8")
    p.add_argument("--drain-weight", type=float, default=1.0, metavar="W",
                   help="a drained compute slice costs W started ones (default 1: drain for a net gain)")  # fmt: skip
    p.add_argument("--no-drain", action="store_true", help="never end running work")
    p.add_argument("--solver", choices=("auto", "highs", "heuristic"), default="auto",
                   help="auto: HiGHS when installed (exact), else the heuristic with its gap to a bound")  # fmt: skip


def build(args: argparse.Namespace) -> tuple[Any, Any, list[str]]:
    """(the session, the problem, notes): the source, its queue, and what the plan starts from."""
    from gputui.cli.job_session import open_session
    from gputui.core.errors import GputuiError
    from gputui.core.migplan.from_snapshot import demands_from_queue, parse_want, plan_gpus
    from gputui.core.migplan.problem import Problem
    from gputui.jobs.records import PENDING, RUNNING

    if args.drain_weight < 0 or math.isnan(args.drain_weight):
        raise GputuiError(f"--drain-weight: {args.drain_weight} is not a weight of 0 or more")
    from gputui.jobs.queue_look import is_simulated

    session = open_session(args.source)
    try:
        layouts = getattr(session.service, "mig_layouts", None)
        if layouts is not None and is_simulated(session.source):
            session.snapshot = layouts.apply(session.snapshot)  # what earlier `mig apply --simulate` re-sliced
        notes = [session.notice] if session.notice else []
        records = session.service.list(states=(PENDING, RUNNING))
        running = [(r.id, _label(r), r.allocation) for r in records if r.running and r.allocation is not None]
        gpus = plan_gpus(session.snapshot, running)
        if not gpus:
            raise GputuiError("mig plan: no GPU of this source is in MIG mode with a known MIG table")
        want = args.want
        if want is None:
            waiting = [(r.id, _label(r), r.request) for r in records if r.pending]
            demands = demands_from_queue(sorted(waiting, key=lambda w: -_prio(records, w[0])))
            if not demands and (args.source or "").lower() == "demo":
                want = DEMO_WANT
                notes.append(f"no MIG job waits in the demo's queue: planning for a sample demand, --want {want}")
            elif not demands:
                notes.append("no MIG job waits in the queue (give a demand with --want 3g.40gb:2,...)")
        if want is not None:
            demands = parse_want(want, gpus)
        weight = math.inf if args.no_drain else args.drain_weight
        return session, Problem(gpus, demands, weight), notes
    except BaseException:
        session.close()
        raise


def _label(r: Any) -> str:
    from gputui.core.plain_text import sanitise

    return sanitise(f"job {r.id} {r.display_name} ({r.user})")


def _prio(records: list[Any], job_id: int) -> int:
    for r in records:
        if r.id == job_id:
            return int(r.priority)
    return 0


def run_plan(args: argparse.Namespace) -> int:
    from gputui.cli.mig.plan_view import plan_json, print_plan, yaml_of
    from gputui.core.migplan.plan import make_plan

    session, problem, notes = build(args)
    try:
        plan = make_plan(problem, args.solver)
        for n in notes:
            print(f"gputui: {n}", file=sys.stderr if args.json else sys.stdout)
        if args.json:
            import json

            print(json.dumps(plan_json(plan), indent=2))
        else:
            print_plan(plan, session.snapshot)
        if args.yaml:
            from pathlib import Path

            Path(args.yaml).write_text(yaml_of(plan))
    finally:
        session.close()
    return 0


def run_apply(args: argparse.Namespace) -> int:
    from gputui.cli.mig.apply import apply_plan

    return apply_plan(args)
