"""Submit-time checks of a request against the cluster: refuse what could never run, naming the option."""

from __future__ import annotations

from gputui.core.numbers import cut, shown
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.mig import placeable
from gputui.core.scheduler.place.host import ALL_MEMORY, host_need
from gputui.core.scheduler.place.placement import constraint_mask, gpus_per_node
from gputui.core.scheduler.request import JobRequest, cpu_text, mib_text
from gputui.core.scheduler.state import ClusterState


class StaticCapacity:
    """What each node could offer if nothing ran: computed once, so a submit costs no cluster scan."""

    def __init__(self, state: ClusterState) -> None:
        self.per_tag_max: dict[str, int] = {}
        self.per_tag_total: dict[str, int] = {}
        self.per_tag_counts: dict[str, list[int]] = {}  # each node's count of a tag, most first
        self.mig_max: dict[str, int] = {}
        self.mps_max = 0
        self.nodes = len(state.nodes)
        known_cpus = [n.cpus for n in state.nodes if n.cpus is not None]
        known_mem = [n.mem for n in state.nodes if n.mem is not None]
        # the most a node has; None when some node's is not known (then nothing is refused for it)
        self.cpus_max = max(known_cpus) if known_cpus and len(known_cpus) == self.nodes else None
        self.mem_max = max(known_mem) if known_mem and len(known_mem) == self.nodes else None
        self.shards_max = max((g.shards for n in state.nodes for g in n.gpus if not g.lost), default=0)
        self.plain_gpus = sum(1 for n in state.nodes for g in n.gpus if not g.lost and not g.mig)
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
                self.per_tag_counts.setdefault(t, []).append(n)
                self.per_tag_max[t] = max(self.per_tag_max.get(t, 0), n)
                self.per_tag_total[t] = self.per_tag_total.get(t, 0) + n
            for p, n in mig.items():
                self.mig_max[p] = max(self.mig_max.get(p, 0), n)
            self.mps_max = max(self.mps_max, mps)
        for counts in self.per_tag_counts.values():
            counts.sort(reverse=True)


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


def _cpu_option(req: JobRequest) -> str:
    if req.cpu_milli:
        return "--cpu-milli"
    if req.cpus_per_gpu:
        return "--cpus-per-gpu"
    if req.ntasks_per_node:
        return "--ntasks-per-node"
    if req.ntasks and not req.cpus_per_task:
        return "--ntasks"
    return "--cpus-per-task" if req.cpus_per_task else "--ntasks"


def _mem_option(req: JobRequest) -> str:
    if req.mem_mib is not None:
        return "--mem"
    return "--mem-per-cpu" if req.mem_per_cpu_mib else ("--mem-per-gpu" if req.mem_per_gpu_mib else "--mem-per-cpu")


def _check_host(state: ClusterState, cap: StaticCapacity, req: JobRequest) -> None:
    """CPUs or memory per node that no node has: the least the job could need on one node is compared."""
    if req.host_default and not state.config.default_mem_per_cpu_mib:
        return  # one CPU, no memory: every node has that
    per = 1 if (req.kind == "count" and req.gpus_per_node is None) else gpus_per_node(req)
    nodes = req.node_count or (req.gpus or 1)
    milli, mem = host_need(req, nodes, per, state.config.default_mem_per_cpu_mib)
    if cap.cpus_max is not None and milli > cap.cpus_max * 1000:
        raise RequestError(
            f"{_cpu_option(req)}: needs {cpu_text(milli)} on a node; the largest node has {cap.cpus_max}"
        )
    if cap.mem_max is not None and mem != ALL_MEMORY and mem > cap.mem_max:
        raise RequestError(
            f"{_mem_option(req)}: needs {mib_text(mem)} on a node; the largest node has {mib_text(cap.mem_max)}"
        )


def check(state: ClusterState, cap: StaticCapacity, req: JobRequest) -> None:
    """Raise :class:`RequestError` if ``req`` could not run even on an idle cluster."""
    if req.constraint and not constraint_mask(state, req.constraint):
        raise RequestError(f"--constraint: no node has {cut('|'.join('&'.join(a) for a in req.constraint))}")
    _check_host(state, cap, req)
    if req.kind == "shard":
        if cap.shards_max == 0:
            raise RequestError("--gres=shard: no GPU is cut into shards (Slurm's gres.conf Name=shard)")
        if (req.shards or 0) > cap.shards_max:
            raise RequestError(f"--gres=shard:{req.shards}: a GPU has at most {cap.shards_max} shards")
    if req.kind == "milli" and cap.plain_gpus == 0:
        raise RequestError("--gpu-milli: no GPU outside MIG mode to share")
    for opt, names in (("--nodelist", req.nodelist), ("--exclude", req.exclude)):
        for n in names:
            if n not in state.by_name:
                raise RequestError(f"{opt}: no node named {cut(n)}")
    n_nodes = req.node_count or 1
    if n_nodes > cap.nodes - len(req.exclude):
        raise RequestError(f"--nodes={n_nodes}: only {cap.nodes - len(req.exclude)} nodes may be used")
    tag = (req.gpu_type or "*").lower()
    if req.kind in ("count", "mps", "shard", "milli") and tag not in cap.per_tag_max:
        raise RequestError(f"--gpus: no node has GPU type {shown(req.gpu_type or '*')}")
    if req.kind == "count":
        if req.gpus_per_node is not None and req.gpus_per_node > cap.per_tag_max.get(tag, 0):
            kind = f"{req.gpu_type} " if req.gpu_type else ""
            raise RequestError(
                f"--gpus-per-node / --gres=gpu:{req.gpus_per_node}: no node has {req.gpus_per_node} {kind}GPUs"
            )
        if req.gpus is not None and req.gpus > cap.per_tag_total.get(tag, 0):
            raise RequestError(f"--gpus={req.gpus}: the cluster has {cap.per_tag_total.get(tag, 0)} such GPUs")
        if req.gpus is not None and req.nodes is not None and req.gpus_per_node is None:
            most = sum(cap.per_tag_counts.get(tag, [])[: req.nodes])
            if req.gpus > most:
                kind = f"{req.gpu_type} " if req.gpu_type else ""
                raise RequestError(
                    f"--gpus={req.gpus} --nodes={req.nodes}: {req.nodes} node(s) have at most {most} {kind}GPUs"
                )
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
