"""The advisor's problem from a snapshot and a queue: every MIG GPU with its instances, who runs on each (a job's
allocation, else the processes the snapshot shows there), and the MIG jobs that wait."""

from __future__ import annotations

from collections.abc import Iterable

from gputui.core.errors import GputuiError
from gputui.core.mig_profiles import model_for, normalise_profile_name
from gputui.core.migplan.layouts import Slot
from gputui.core.migplan.problem import Demand, Instance, PlanGpu, Work
from gputui.core.model import ClusterSnapshot
from gputui.core.plain_text import sanitise
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.request import JobRequest

#: (job id, label, allocation) of a running job
Running = tuple[int, str, Allocation]
#: (job id, label, request) of a waiting job, in queue order
Waiting = tuple[int, str, JobRequest]


def plan_gpus(snap: ClusterSnapshot, running: Iterable[Running] = ()) -> tuple[PlanGpu, ...]:
    holders: dict[tuple[str, int, int], list[Work]] = {}
    for job_id, label, alloc in running:
        for ng in alloc.nodes:
            for gr in ng.gpus:
                if gr.mig is not None:
                    holders.setdefault((ng.node, gr.index, gr.mig.gi_id), []).append(
                        Work(f"job {job_id}", label, job_id)
                    )
    out = []
    for node in snap.nodes:
        for gpu in node.gpus:
            if not gpu.mig_enabled or gpu.lost:
                continue
            model = model_for(gpu.name)
            if model is None:
                continue
            fixed = False
            instances = []
            for gi in gpu.gpu_instances:
                profile = model.profile(gi.profile or "")
                start = gi.placement_start
                if gi.gi_id is None or profile is None or start is None or start not in dict(profile.placements):
                    fixed = True
                    continue
                work = holders.get((node.name, gpu.index, gi.gi_id))
                if not work:
                    procs = [p for p in gpu.processes if p.gi_id == gi.gi_id]
                    if procs:
                        users = sorted({sanitise(p.user) for p in procs if p.user})
                        pids = ",".join(str(p.pid) for p in procs)
                        who = f" ({', '.join(users)})" if users else ""
                        work = [Work(f"pids {pids}", f"pid {pids}{who}: {sanitise(procs[0].command or '?')}")]
                cis = tuple(ci.ci_id for ci in gi.compute_instances if ci.ci_id is not None)
                slot = Slot(start, dict(profile.placements)[start], profile.name)
                instances.append(Instance(gi.gi_id, slot, cis, tuple(work or ())))
            out.append(PlanGpu(node.name, gpu.index, model, tuple(instances), fixed))
    return tuple(out)


def demands_from_queue(waiting: Iterable[Waiting]) -> tuple[Demand, ...]:
    """The waiting single-node MIG jobs as demands, in queue order (multi-node ones are left out)."""
    out = []
    for rank, (job_id, label, req) in enumerate(waiting):
        if req.kind != "mig" or (req.nodes or 1) != 1:
            continue
        nodes = frozenset(req.nodelist) if req.nodelist else None
        out.append(Demand(f"job {job_id}", label, tuple(req.mig), rank, nodes, job_id))
    return tuple(out)


def parse_want(text: str, gpus: tuple[PlanGpu, ...]) -> tuple[Demand, ...]:
    """``3g.40gb:4,1g.10gb:8`` as one demand per instance; GputuiError naming the bad part."""
    known = {p.name for g in gpus for p in g.model.profiles}
    out: list[Demand] = []
    for part in text.split(","):
        name, sep, count = part.strip().rpartition(":")
        if not sep:
            name, count = part.strip(), "1"
        profile = normalise_profile_name(name)
        if not count.isdigit() or int(count) < 1:
            raise GputuiError(f"--want: {part.strip()!r}: expected PROFILE:COUNT, e.g. 3g.40gb:4")
        if profile not in known:
            have = ", ".join(sorted(known, key=lambda n: (int(n.split("g.")[0]), n))) or "none"
            raise GputuiError(f"--want: no MIG GPU here has profile {name!r} (they have {have})")
        for _ in range(int(count)):
            k = len(out) + 1
            out.append(Demand(f"want {k}", f"{profile} #{k}", ((profile, 1),), rank=k))
    return tuple(out)
