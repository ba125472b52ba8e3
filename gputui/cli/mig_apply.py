"""`gputui mig apply --simulate [SOURCE]`: the plan carried out on a model of the cluster.

On a replay or the demo: every GPU's commands are replayed on the model (each step checked against the placement
table and the instances' state), the drained work leaves the snapshot, and the embedded scheduler then places the
waiting work on the new layouts as static MIG, as Slurm would; the result is printed and the queue is not changed.
On a live machine the commands are printed and nothing is run: gputui never re-slices a real GPU.
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace


def apply_plan(args: argparse.Namespace) -> int:
    from gputui.cli.mig_plan_cmd import build
    from gputui.core.migplan.plan import make_plan
    from gputui.jobs.queue_look import is_simulated

    session, problem, notes = build(args)
    try:
        plan = make_plan(problem, args.solver)
        for n in notes:
            print(f"gputui: {n}")
        if not is_simulated(session.source):
            print("live machine: nothing is changed (gputui never re-slices a real GPU); drain, then run:")
            for gp in plan.gpus:
                for w in gp.drained:
                    print(f"  # drain first: {w.label}")
                for cmd in gp.commands:
                    print("  " + shlex.join(cmd))
            return 0
        return _simulate(plan, session.snapshot)
    finally:
        session.close()


def _simulate(plan, snap) -> int:  # type: ignore[no-untyped-def]
    from gputui.cli.mig_plan_view import proposed_snapshot
    from gputui.core.errors import GputuiError
    from gputui.core.migplan.smi_replay import ModelGpu, ReplayError, replay
    from gputui.core.scheduler import ledger
    from gputui.core.scheduler.build import state_from_snapshot
    from gputui.core.scheduler.config import SchedulerConfig
    from gputui.core.scheduler.parse.options import parse_options
    from gputui.core.scheduler.place.finder import find_allocation
    from gputui.core.scheduler.place.placement import prepare
    from gputui.core.scheduler.policies import get_policy

    by_key = {gp.gpu.key: gp for gp in plan.gpus}
    nodes = []
    for node in snap.nodes:
        gpus = []
        for g in node.gpus:
            gp = by_key.get((node.name, g.index))
            if gp is None or not gp.changed:
                gpus.append(g)
                continue
            model = ModelGpu(gp.gpu.model)
            for i in gp.gpu.instances:
                model.instances[i.gi_id] = i.slot
                model.cis[i.gi_id] = set(i.ci_ids)
                if i.busy and i not in gp.removed:
                    model.busy |= {(i.gi_id, c) for c in i.ci_ids}
            for cmd in gp.commands:
                try:
                    replay({g.index: model}, list(cmd))
                except ReplayError as e:
                    raise GputuiError(f"mig apply: {node.name} GPU {g.index}: {e}") from None
                print(f"{node.name}: {shlex.join(cmd)}")
            if model.layout() != gp.layout:
                raise GputuiError(f"mig apply: {node.name} GPU {g.index}: the commands did not reach the plan")
            new = proposed_snapshot(g, gp)
            ids = iter(sorted(set(range(1, 64)) - {i.gi_id for i in gp.gpu.instances if i not in gp.removed}))
            gis = tuple(gi if gi.gi_id is not None else replace(gi, gi_id=next(ids)) for gi in new.gpu_instances)
            gpus.append(replace(new, gpu_instances=gis))
        nodes.append(replace(node, gpus=tuple(gpus)))
    state = state_from_snapshot(replace(snap, nodes=tuple(nodes)), SchedulerConfig())
    policy = get_policy("best-fit")
    started = 0
    for job, d in enumerate(plan.started, start=1):
        gres = ",".join(f"gpu:{p}:{n}" for p, n in d.needs)
        where = f" --nodelist={','.join(sorted(d.nodes))}" if d.nodes else ""
        alloc = find_allocation(state, prepare(state, parse_options(f"--gres={gres}{where}")), policy)
        if alloc is None:
            print(f"would wait: {d.label}")
            continue
        ledger.apply(state, alloc, 10**9 + job)
        started += 1
        at = "; ".join(f"{ng.node} GPU {gr.index} GI {gr.mig.gi_id} {gr.mig.profile}" for ng in alloc.nodes
                       for gr in ng.gpus if gr.mig)  # fmt: skip
        print(f"starts: {d.label} on {at}")
    for gp in plan.gpus:
        for w in gp.drained:
            print(f"drained: {w.label}")
    print(f"simulated: {started} of {len(plan.started)} planned start(s) placed by the scheduler on the new layouts; "
          "the queue and the recording are unchanged")  # fmt: skip
    return 0 if started == len(plan.started) else 1
