"""Scheduler state from a :class:`ClusterSnapshot`, or from a node configuration for synthetic clusters."""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from gputui.core.host_builds import host_build
from gputui.core.mig_profiles import GpuModel, infer_profile, model_for, normalise_profile_name
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.mig import best_start
from gputui.core.scheduler.parse.hostlist import expand_hostlist
from gputui.core.scheduler.state import ClusterState, GpuUnit, MigSlot, NodeState

_NOISE = {"nvidia", "tesla", "geforce", "quadro", "rtx", "sxm", "pcie"}
_NS = uuid.UUID("6f1c2a10-3c55-4c0e-9a8e-5b7d2f0c9e11")


def gpu_tags(name: str | None, model: GpuModel | None, extra: str | None = None) -> tuple[str, ...]:
    """Type names a request may use for this GPU: ``*``, the product name, the model key, and its family."""
    tags = {"*"}
    if name:
        low = name.lower().strip()
        tags.add(low)
        words = [w for w in re.findall(r"[a-z0-9]+", low) if w not in _NOISE]
        fam = next((w for w in words if re.search(r"\d", w)), None)
        if fam:
            tags.add(fam)
    if model is not None:
        tags.add(model.key.lower())
        tags.add(model.key.split("-")[0].lower())
    if extra:
        tags.add(extra.lower())
    return tuple(sorted(tags))


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """A synthetic GPU: its model, whether MPS runs on it, and its MIG layout (None: MIG off)."""

    model: str = "A100-40GB"
    mps: bool = False
    mig: tuple[str, ...] | None = None  # profiles created at start, in order; () means MIG on, no instances
    memory_mib: int | None = None
    gpu_type: str | None = None  # an extra type name, like Slurm's gres Type=


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A synthetic node; CPUs and memory None take the usual build for its GPUs (:func:`host_build`)."""

    name: str
    gpus: tuple[GpuSpec, ...]
    cpus: int | None = None
    memory_mib: int | None = None
    features: tuple[str, ...] = ()


def nodes_from_pattern(hostlist: str, gpus: Sequence[GpuSpec], cpus: int | None = None,
                       memory_mib: int | None = None) -> list[NodeSpec]:  # fmt: skip
    """One :class:`NodeSpec` per host of a Slurm host list, each with the same GPUs."""
    return [NodeSpec(n, tuple(gpus), cpus, memory_mib) for n in expand_hostlist(hostlist, "nodes")]


def _synthetic_uuid(*parts: object) -> str:
    return str(uuid.uuid5(_NS, "/".join(str(p) for p in parts)))


def state_from_specs(specs: Sequence[NodeSpec], config: SchedulerConfig | None = None) -> ClusterState:
    """A state for a cluster described by configuration, with deterministic synthetic UUIDs."""
    state = ClusterState(config)
    shards = state.config.shards_per_gpu
    for spec in specs:
        cpus, host_mem = host_build(spec.gpus[0].model if spec.gpus else None, len(spec.gpus))
        node = state.add_node(spec.name, spec.cpus if spec.cpus is not None else cpus,
                              spec.memory_mib if spec.memory_mib is not None else host_mem, spec.features)  # fmt: skip
        for i, gs in enumerate(spec.gpus):
            model = model_for(gs.model)
            name = gs.model if model is None else (model.aliases[0] if model.aliases else model.key)
            mem = gs.memory_mib
            if mem is None and model is not None:
                m = re.search(r"(\d+)GB", model.key)
                mem = int(m.group(1)) * 1024 if m else None
            g = GpuUnit(node, i, "GPU-" + _synthetic_uuid(spec.name, i), name, model, mem,
                        gpu_tags(name, model, gs.gpu_type))  # fmt: skip
            g.mps_on = gs.mps and gs.mig is None
            g.shards = shards if gs.mig is None else 0
            if gs.mig is not None:
                if model is None:
                    raise ValueError(f"{spec.name} GPU {i}: no MIG table for {gs.model}")
                g.mig = True
                g.dyn_ok = True
                for gi, prof_name in enumerate(gs.mig, start=1):
                    p = model.profile(prof_name)
                    if p is None:
                        raise ValueError(f"{spec.name} GPU {i}: {gs.model} has no profile {prof_name}")
                    start = best_start(model, p, g.used_mask, g.compute_used, g.profile_count(p.name))
                    if start is None:
                        raise ValueError(f"{spec.name} GPU {i}: {prof_name} does not fit")
                    size = dict(p.placements)[start]
                    cis = ((0, "MIG-" + _synthetic_uuid(spec.name, i, gi, 0)),)
                    g.instances.append(MigSlot(gi, p.name, p, start, size, cis))
            state.add_gpu(node, g)
    return state


def _is_mps_server(p_command: str | None, pid: int, server_pid: int | None) -> bool:
    return pid == server_pid or bool(p_command and "nvidia-cuda-mps" in p_command)


def _add_mig(g: GpuUnit, gs: GpuSnapshot, model: GpuModel | None) -> None:
    g.mig = True
    g.dyn_ok = model is not None
    for gi in gs.gpu_instances:
        p = None
        if model is not None:
            if gi.profile:
                p = model.profile(gi.profile)
            if p is None and gi.profile_id is not None:
                p = model.profile_by_id(gi.profile_id)
            if p is None:
                p = infer_profile(model, gi.memory_total_mib, gi.sm_count)
        name = p.name if p else (normalise_profile_name(gi.profile) if gi.profile else None)
        start, size = gi.placement_start, gi.placement_size
        if start is None and p is not None and len(p.placements) == 1:
            start, size = p.placements[0]
        if size is None and p is not None and start is not None:
            size = p.memory_slices
        if start is None or size is None or p is None or gi.gi_id is None:
            g.dyn_ok = False  # an instance we cannot place: never create new ones beside it
        cis = tuple((ci.ci_id, ci.mig_uuid) for ci in gi.compute_instances)
        g.instances.append(MigSlot(gi.gi_id, name, p, start, size, cis, busy=gi.gi_id is None or name is None))


def state_from_snapshot(
    snapshot: ClusterSnapshot,
    config: SchedulerConfig | None = None,
    own_pids: Collection[tuple[str, int]] = (),
) -> ClusterState:
    """A state from what a source saw; processes not in ``own_pids`` (node, pid) are foreign load."""
    config = config or SchedulerConfig()
    state = ClusterState(config)
    own = set(own_pids)
    for ns in snapshot.nodes:
        res = ns.resources
        node: NodeState = state.add_node(ns.name, res.cpus if res else None, res.memory_mib if res else None,
                                         ns.features)  # fmt: skip
        if res is not None:  # what the workload manager's own jobs hold (never more than there is)
            held_cpus = min(res.cpus_alloc or 0, node.cpus or 0) * 1000
            held_mem = min(res.memory_alloc_mib or 0, node.mem or 0)
            if held_cpus or held_mem:
                state.take_host(node, held_cpus, held_mem, 1)  # counted as a job there: the node is not idle
        shard_left = _shards(ns, config)
        for gs in ns.gpus:
            model = model_for(gs.name)
            g = GpuUnit(node, gs.index, gs.uuid, gs.name, model, gs.memory_total_mib, gpu_tags(gs.name, model))
            g.lost = gs.lost
            server_pid = gs.mps.server_pid if gs.mps else None
            if gs.mig_enabled:
                _add_mig(g, gs, model)
            elif gs.mps is not None and gs.mps.running:
                g.mps_on = True
                g.mps_pipe = gs.mps.pipe_directory
            clients: dict[int, tuple[int, int]] = {}
            if gs.mps is not None:
                for c in gs.mps.clients:
                    if (ns.name, c.pid) not in own:
                        clients[c.pid] = (c.active_thread_percentage or 0, c.memory_used_mib or 0)
            for p in gs.processes:
                if (ns.name, p.pid) in own or _is_mps_server(p.command, p.pid, server_pid):
                    continue
                if p.type in ("M", "M+C"):
                    clients.setdefault(p.pid, (0, p.used_memory_mib or 0))
                elif config.foreign_busy:
                    if g.mig and p.gi_id is not None:
                        for s in g.instances:
                            if s.gi_id == p.gi_id:
                                s.busy = True
                    else:
                        g.busy = True
            g.foreign_clients = len(clients)
            g.mps_clients = len(clients)
            g.mps_pct = sum(v[0] for v in clients.values())
            g.mps_mem = sum(v[1] for v in clients.values())
            if not g.mig and shard_left[0]:
                g.shards = shard_left[0]
                g.shards_used = min(g.shards, shard_left[1])  # Slurm says how many, not on which GPU: in index order
                shard_left[1] -= g.shards_used
            state.add_gpu(node, g)
    return state


def _shards(ns: NodeSnapshot, config: SchedulerConfig) -> list[int]:
    """[shards per GPU, shards in use] on a node: from its "shard" GRES where a manager gives one, else config."""
    plain = sum(1 for g in ns.gpus if not g.mig_enabled)
    for name, total, used in ns.shares:
        if name == "shard" and plain:
            return [total // plain, used or 0]
    return [config.shards_per_gpu, 0]
