"""Submit-time checks of a request against the cluster: refuse what could never run, naming the option."""

from __future__ import annotations

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.mig import placeable
from gputui.core.scheduler.request import JobRequest
from gputui.core.scheduler.state import ClusterState


class StaticCapacity:
    """What each node could offer if nothing ran: computed once, so a submit costs no cluster scan."""

    def __init__(self, state: ClusterState) -> None:
        self.per_tag_max: dict[str, int] = {}
        self.per_tag_total: dict[str, int] = {}
        self.mig_max: dict[str, int] = {}
        self.mps_max = 0
        self.nodes = len(state.nodes)
        for node in state.nodes:
            tags: dict[str, int] = {}
            mig: dict[str, int] = {}
            mps = 0
            for g in node.gpus:
                if g.lost:
                    continue
                if g.mig:
                    for name, n in _mig_potential(state, g).items():
                        mig[name] = mig.get(name, 0) + n
                    continue
                for t in g.tags:
                    tags[t] = tags.get(t, 0) + 1
                mps += g.mps_on
            for t, n in tags.items():
                self.per_tag_max[t] = max(self.per_tag_max.get(t, 0), n)
                self.per_tag_total[t] = self.per_tag_total.get(t, 0) + n
            for p, n in mig.items():
                self.mig_max[p] = max(self.mig_max.get(p, 0), n)
            self.mps_max = max(self.mps_max, mps)


def _mig_potential(state: ClusterState, g) -> dict[str, int]:  # type: ignore[no-untyped-def]
    static = [s for s in g.instances if not s.created]
    out: dict[str, int] = {}
    for s in static:
        if s.name:
            out[s.name] = out.get(s.name, 0) + 1
    if state.config.mig_dynamic and g.dyn_ok and g.model is not None:
        used = 0
        for s in static:
            used |= s.mask
        compute = sum(s.compute for s in static)
        for p in g.model.profiles:
            n = placeable(g.model, p, used, compute, out.get(p.name, 0))
            if n:
                out[p.name] = out.get(p.name, 0) + n
    return out


def check(state: ClusterState, cap: StaticCapacity, req: JobRequest) -> None:
    """Raise :class:`RequestError` if ``req`` could not run even on an idle cluster."""
    for opt, names in (("--nodelist", req.nodelist), ("--exclude", req.exclude)):
        for n in names:
            if n not in state.by_name:
                raise RequestError(f"{opt}: no node named {n}")
    n_nodes = req.node_count or 1
    if n_nodes > cap.nodes - len(req.exclude):
        raise RequestError(f"--nodes={n_nodes}: only {cap.nodes - len(req.exclude)} nodes may be used")
    tag = (req.gpu_type or "*").lower()
    if req.kind in ("count", "mps") and tag not in cap.per_tag_max:
        raise RequestError(f"--gpus: no node has GPU type {req.gpu_type!r}")
    if req.kind == "count":
        if req.gpus_per_node is not None and req.gpus_per_node > cap.per_tag_max.get(tag, 0):
            kind = f"{req.gpu_type} " if req.gpu_type else ""
            raise RequestError(
                f"--gpus-per-node / --gres=gpu:{req.gpus_per_node}: no node has {req.gpus_per_node} {kind}GPUs"
            )
        if req.gpus is not None and req.gpus > cap.per_tag_total.get(tag, 0):
            raise RequestError(f"--gpus={req.gpus}: the cluster has {cap.per_tag_total.get(tag, 0)} such GPUs")
    elif req.kind == "device":
        node = state.by_name[req.nodelist[0]]
        for i in req.gpu_ids:
            g = node.by_index.get(i)
            if g is None:
                raise RequestError(f"--gpu-ids: {node.name} has no GPU {i}")
            if g.mig:
                raise RequestError(f"--gpu-ids: GPU {i} of {node.name} is in MIG mode; request MIG instances")
    elif req.kind == "mig":
        for profile, count in req.mig:
            most = cap.mig_max.get(profile, 0)
            if most == 0:
                how = "" if state.config.mig_dynamic else " (static MIG: no such instance exists)"
                raise RequestError(f"--gres: no node has MIG profile {profile}{how}")
            if count > most:
                raise RequestError(f"--gres: {count} x {profile} per node, but a node has at most {most}")
    elif req.kind == "mps":
        if cap.mps_max == 0:
            raise RequestError("--gres=mps: no GPU has an MPS daemon running")
        if (req.gpus_per_node or 1) > cap.mps_max:
            raise RequestError(f"--gpus-per-node={req.gpus_per_node}: a node has at most {cap.mps_max} MPS GPUs")
        if state.config.mps_percent_cap is not None and (req.mps_percent or 0) > state.config.mps_percent_cap:
            raise RequestError(
                f"--gres=mps:{req.mps_percent}: above the per-GPU cap of {state.config.mps_percent_cap} %"
            )
