"""`gputui mig apply --simulate [SOURCE]`: the plan carried out, on a replay only.

On a replay or the demo: every GPU's commands are replayed on the model (each step checked against the placement
table and the instances' state), the queue's jobs that must drain are requeued, the GPUs get their new layouts
(kept for that replay's queue until `--reset`, so the dashboard and the simulator show them), and one scheduling
pass starts the waiting jobs in the new instances. On a live machine the commands are printed and nothing is run:
gputui never re-slices a real GPU.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any


def apply_plan(args: argparse.Namespace) -> int:
    from gputui.cli.mig.plan_command import build
    from gputui.core.migplan.plan import make_plan
    from gputui.jobs.queue_look import is_simulated

    session, problem, notes = build(args)
    try:
        layouts = getattr(session.service, "mig_layouts", None)
        if args.reset:
            if layouts is None or not is_simulated(session.source):
                print("nothing to reset: only a replay's GPUs are re-sliced by gputui")
            else:
                had = layouts.reset()
                print("the recorded MIG layouts are back" if had else "no GPU of this replay was re-sliced")
            return 0
        plan = make_plan(problem, args.solver)
        for n in notes:
            print(f"gputui: {n}")
        if layouts is None or not is_simulated(session.source):
            print("live machine: nothing is changed (gputui never re-slices a real GPU); drain, then run:")
            for gp in plan.gpus:
                for w in gp.drained:
                    print(f"  # drain first: {w.label}")
                for cmd in gp.commands:
                    print("  " + shlex.join(cmd))
            return 0
        return _simulate(session, plan, layouts)
    finally:
        session.close()


def _simulate(session: Any, plan: Any, layouts: Any) -> int:
    from gputui.core.errors import GputuiError
    from gputui.core.migplan.smi_replay import ModelGpu, ReplayError, replay
    from gputui.core.plain_text import sanitise
    from gputui.jobs.records import RUNNING

    changes = {}
    for gp in plan.gpus:
        if not gp.changed:
            continue
        g = gp.gpu
        model = ModelGpu(g.model)
        for i in g.instances:
            model.instances[i.gi_id] = i.slot
            model.cis[i.gi_id] = set(i.ci_ids)
            if i.busy and i not in gp.removed:
                model.busy |= {(i.gi_id, c) for c in i.ci_ids}
        for cmd in gp.commands:
            try:
                replay({g.index: model}, list(cmd))
            except ReplayError as e:
                raise GputuiError(f"mig apply: {sanitise(g.node)} GPU {g.index}: {e}") from None
            print(f"{sanitise(g.node)}: {shlex.join(cmd)}")
        if model.layout() != gp.layout:
            raise GputuiError(f"mig apply: {sanitise(g.node)} GPU {g.index}: the commands did not reach the plan")
        changes[g.key] = tuple((gi, s.profile, s.start) for gi, s in sorted(model.instances.items()))
    service = session.service
    for gp in plan.gpus:
        for w in gp.drained:
            if w.job_id is not None:
                service.requeue(w.job_id)
                print(f"requeued: {w.label}")
            else:
                print(f"ended (simulated): {w.label}")
    if changes:
        layouts.save(changes)
    result = service.tick(session.snapshot)
    if result.error:
        raise GputuiError(f"mig apply: {result.error}")
    changed = set(changes)
    started = [
        r for r in service.list(states=(RUNNING,))
        if r.allocation is not None and any((ng.node, gr.index) in changed for ng in r.allocation.nodes
                                            for gr in ng.gpus if gr.mig)
    ]  # fmt: skip
    for r in started:
        print(sanitise(f"running: job {r.id} {r.display_name} on {r.allocation_text}"))
    jobs = sum(1 for d in plan.started if d.job_id is not None)
    print(f"re-sliced {len(changes)} GPU(s) of this replay (gputui mig apply --simulate --reset gives the recorded "
          f"layouts back); {len(started)} job(s) run on them, {jobs} were planned to start")  # fmt: skip
    return 0
