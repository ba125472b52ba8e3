"""The MIG plan as text (the layouts drawn as the GPU detail draws them) and as JSON."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from typing import Any

from rich.console import Console
from rich.text import Text

from gputui.cli.plain_output import terminal
from gputui.core.migplan.parted import yaml_config
from gputui.core.migplan.plan import GpuPlan, Plan
from gputui.core.model import ClusterSnapshot, ComputeInstance, GpuInstance, GpuSnapshot
from gputui.core.plain_text import plain_data, sanitise, sanitise_block
from gputui.ui.widgets.mig_view import render_mig


def proposed_snapshot(gpu: GpuSnapshot, gp: GpuPlan) -> GpuSnapshot:
    """``gpu`` with the proposed instances: kept ones as they are, new ones without an id (the driver gives it)."""
    kept_ids = {i.gi_id for i in gp.gpu.instances if i not in gp.removed}
    gis = [gi for gi in gpu.gpu_instances if gi.gi_id in kept_ids]
    for s in gp.created:
        p = gp.gpu.model.profile(s.profile)
        assert p is not None
        ci = ComputeInstance(0, p.name, p.sm_count)
        gis.append(GpuInstance(None, p.name, p.gi_profile_id, s.start, s.size, p.memory_mib_estimate, None, p.sm_count,
                               (ci,)))  # fmt: skip
    procs = tuple(pr for pr in gpu.processes if pr.gi_id in kept_ids)
    return replace(gpu, gpu_instances=tuple(gis), processes=procs)


def _gpu_of(snap: ClusterSnapshot, node: str, index: int) -> GpuSnapshot | None:
    for n in snap.nodes:
        if n.name == node:
            for g in n.gpus:
                if g.index == index:
                    return g
    return None


def _diagram(gpu: GpuSnapshot, width: int) -> Text:
    """The slot diagram of the detail view (its slot, GI and CI lines), without the GI list under it."""
    lines = render_mig(plain_data(gpu), width).split("\n")  # its strings sanitised before they are laid out
    keep = [ln for ln in lines[1:4] if ln.plain.startswith(("slot", "GI ", "CI "))] or lines[:1]
    return Text("\n").join(keep)


def _plain(text: str, style: str = "") -> Text:
    """A line of the plan as plain Text: node names, job labels and commands come from data."""
    return Text(sanitise_block(text), style=style)


def yaml_of(plan: Plan) -> str:
    per_node: dict[str, list] = {}
    for gp in plan.gpus:
        if gp.gpu.fixed:
            continue  # its layout is not fully known: mig-parted would re-create it from a guess
        per_node.setdefault(gp.gpu.node, []).append((gp.gpu.index, gp.layout))
    return yaml_config(per_node)


def _summary(plan: Plan) -> str:
    gap = plan.gap
    tail = "optimal" if plan.bound is not None and gap == 0 else (
        f"within {gap * 100:.1f} % of a bound ({plan.bound:g})" if gap is not None else "no bound")  # fmt: skip
    return (
        f"{len(plan.started)} waiting job(s) start ({plan.started_compute} compute slices), "
        f"{sum(len(gp.drained) for gp in plan.gpus)} running drain ({plan.drained_compute} slices), "
        f"{len(plan.waiting)} still wait; {plan.method}, {tail}; {plan.seconds:.2f} s"
    )


def print_plan(plan: Plan, snap: ClusterSnapshot, width: int = 100) -> None:
    # Rich's own colours go to the terminal; every string from data is sanitised into Text first
    out = Console(file=terminal(sys.stdout), highlight=False, width=max(width, 80))
    out.print(_plain(_summary(plan)))
    for gp in plan.gpus:
        g = gp.gpu
        head = f"{sanitise(g.node)} GPU {g.index} ({g.model.key})"
        if gp.gpu.fixed and not gp.starts:
            out.print(_plain(f"\n{head}: left as it is (this source does not give every instance's placement and id)"))
            continue
        if not gp.changed and not gp.starts:
            out.print(_plain(f"\n{head}: unchanged"))
            continue
        out.print(_plain(f"\n{head}", style="bold"))
        snap_gpu = _gpu_of(snap, g.node, g.index)
        if snap_gpu is not None:
            out.print(_plain("  now:"))
            out.print(_diagram(snap_gpu, width))
            if gp.changed:
                out.print(_plain("  proposed:"))
                out.print(_diagram(proposed_snapshot(snap_gpu, gp), width))
        for w in gp.drained:
            out.print(_plain(f"  drain first: {w.label}"))
        for s, d in gp.starts:
            out.print(_plain(f"  starts: {d.label} on {s.profile} at slot {s.start}"))
        for cmd in gp.commands:
            out.print(_plain(f"  $ {shlex.join(cmd)}"))
    if plan.waiting:
        out.print(_plain("\nstill waiting: " + ", ".join(d.label for d in plan.waiting[:20])
                       + (" ..." if len(plan.waiting) > 20 else "")))  # fmt: skip
    out.print(_plain("\nmig-parted configuration (nvidia-mig-parted apply -f FILE -c gputui-NODE):"))
    out.print(_plain(yaml_of(plan).rstrip()))


def plan_json(plan: Plan) -> dict[str, Any]:
    def slot(s: Any) -> dict[str, Any]:
        return {"profile": s.profile, "start": s.start, "size": s.size}

    return {
        "method": plan.method, "objective": plan.objective, "bound": plan.bound, "gap": plan.gap,
        "seconds": round(plan.seconds, 4), "started_compute": plan.started_compute,
        "drained_compute": plan.drained_compute,
        "started": [d.key for d in plan.started], "waiting": [d.key for d in plan.waiting],
        "gpus": [
            {
                "node": gp.gpu.node, "index": gp.gpu.index, "model": gp.gpu.model.key,
                "now": [dict(slot(i.slot), gi_id=i.gi_id, busy=i.busy) for i in gp.gpu.instances],
                "proposed": [slot(s) for s in gp.layout],
                "drain": [w.key for w in gp.drained],
                "starts": [dict(slot(s), demand=d.key) for s, d in gp.starts],
                "commands": [list(c) for c in gp.commands],
            }
            for gp in plan.gpus
        ],
        "mig_parted": yaml_of(plan),
    }  # fmt: skip
