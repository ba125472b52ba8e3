"""Raw options to one consistent :class:`JobRequest`, refusing contradictions with the option's name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gputui.core.numbers import shown
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.gres import GpuItem
from gputui.core.scheduler.request import JobRequest

MPS_PERCENT_VAR = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"


@dataclass
class RawOptions:
    """Options as read, before they are checked against each other."""

    gpus: GpuItem | None = None
    gpus_per_node: GpuItem | None = None
    gres: list[GpuItem] | None = None
    gpu_ids: tuple[int, ...] | None = None
    nodes: int | None = None
    exclusive: bool = False
    nodelist: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    time_limit_s: int | None = None
    mem_per_gpu_mib: int | None = None
    mem_per_cpu_mib: int | None = None
    mem_mib: int | None = None
    gpu_mem_mib: int | None = None
    gpu_milli: int | None = None
    constraint: tuple[tuple[str, ...], ...] = ()
    ntasks: int | None = None
    ntasks_per_node: int | None = None
    cpus_per_task: int | None = None
    cpus_per_gpu: int | None = None
    cpu_milli: int | None = None
    name: str | None = None
    priority: int = 0
    nice: int = 0
    dependencies: tuple[tuple[str, int], ...] = ()
    environment: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    held: bool = False
    begin: str | None = None
    gpus_per_task: GpuItem | None = None
    mps_any: bool = False  # mps:N is a count of the cluster's MPS GRES (Slurm), not a percentage up to 100


def _mps_env(raw: RawOptions) -> int | None:
    v = raw.environment.get(MPS_PERCENT_VAR)
    if v is None:
        return None
    if not re.fullmatch(r"\d{1,3}", v.strip()) or not 1 <= int(v) <= 100:
        raise RequestError(f"{MPS_PERCENT_VAR}: {shown(v)} is not a percentage from 1 to 100")
    return int(v)


def _one_type(items: list[GpuItem]) -> str | None:
    types = {it.gpu_type for it in items if it.gpu_type}
    if len(types) > 1:
        raise RequestError(f"--gres: GPU types {', '.join(sorted(types))} disagree; request one type")
    return types.pop() if types else None


def _mig(raw: RawOptions, gres_mig: list[GpuItem], whole: list[GpuItem], ids: bool, mps_env: int | None) -> dict:
    if whole:
        raise RequestError("--gres: whole GPUs and MIG instances cannot be requested together")
    if ids:
        raise RequestError("--gpu-ids: device indices cannot be combined with MIG instances")
    if raw.exclusive:
        raise RequestError("--exclusive: not supported with MIG instances (it takes whole nodes)")
    if mps_env is not None:
        raise RequestError(f"{MPS_PERCENT_VAR}: MPS on MIG instances is not supported")
    sources = [
        s for s in (gres_mig, [raw.gpus] if raw.gpus else [], [raw.gpus_per_node] if raw.gpus_per_node else []) if s
    ]
    if len(sources) > 1:
        raise RequestError("--gres: give MIG instances once (--gres, --gpus or --gpus-per-node)")
    if raw.gpus is not None and (raw.nodes or 1) > 1:
        raise RequestError("--gpus: a MIG total cannot span nodes; use --gres or --gpus-per-node with --nodes")
    counts: dict[str, int] = {}
    for it in sources[0]:
        assert it.profile is not None
        counts[it.profile] = counts.get(it.profile, 0) + it.count
    return {"kind": "mig", "mig": tuple(counts.items()), "gpu_type": _one_type(sources[0]), "nodes": raw.nodes}


def _host_checks(raw: RawOptions) -> None:
    mems = [o for o, v in (("--mem", raw.mem_mib), ("--mem-per-cpu", raw.mem_per_cpu_mib),
                           ("--mem-per-gpu", raw.mem_per_gpu_mib)) if v is not None]  # fmt: skip
    if len(mems) > 1:
        raise RequestError(f"{mems[1]}: cannot be combined with {mems[0]} (give memory one way)")
    if raw.cpus_per_gpu is not None and raw.cpus_per_task is not None:
        raise RequestError("--cpus-per-gpu: cannot be combined with --cpus-per-task")
    if raw.cpu_milli is not None and (raw.cpus_per_gpu or raw.cpus_per_task or raw.ntasks or raw.ntasks_per_node):
        raise RequestError("--cpu-milli: gives the CPUs per node itself; drop -c, -n and --cpus-per-gpu")


def _share(raw: RawOptions, shard: list[GpuItem], others: bool, mps_env: int | None) -> dict:
    """A shard or thousandths request: part of one GPU, on ``--nodes`` nodes."""
    what = "--gres=shard" if shard else "--gpu-milli"
    if len(shard) > 1:
        raise RequestError("--gres: shard given twice")
    if shard and raw.gpu_milli is not None:
        raise RequestError("--gpu-milli: cannot be combined with --gres=shard")
    if others or mps_env is not None:
        raise RequestError(f"{what}: a GPU share cannot be combined with whole GPUs, MIG, MPS or device indices")
    if raw.exclusive:
        raise RequestError(f"--exclusive: not supported with {what}")
    gpu_type = raw.gpus.gpu_type if raw.gpus is not None and raw.gpus.what == "gpu" else None
    if shard:
        return {"kind": "shard", "shards": shard[0].count, "nodes": raw.nodes, "gpu_type": gpu_type}
    return {"kind": "milli", "gpu_milli": raw.gpu_milli, "nodes": raw.nodes, "gpu_type": gpu_type}


def build_request(raw: RawOptions) -> JobRequest:
    """Check the options against each other and fold them into a request."""
    mps_env = _mps_env(raw)
    _host_checks(raw)
    items = raw.gres or []
    gres_gpu = [i for i in items if i.what == "gpu"]
    gres_ids = [i for i in items if i.what == "ids"]
    gres_mig = [i for i in items if i.what == "mig"]
    gres_mps = [i for i in items if i.what == "mps"]
    gres_shard = [i for i in items if i.what == "shard"]
    flags = [x for x in (raw.gpus, raw.gpus_per_node) if x is not None]
    whole = gres_gpu + [x for x in flags if x.what == "gpu"]
    mig_given = gres_mig or any(x.what == "mig" for x in flags)
    if len(gres_ids) > 1 or (gres_ids and raw.gpu_ids is not None):
        raise RequestError("--gpu-ids: give device indices once")
    ids = gres_ids[0].ids if gres_ids else raw.gpu_ids
    if raw.nodelist and raw.exclude:
        both = sorted(set(raw.nodelist) & set(raw.exclude))
        if both:
            raise RequestError(f"--exclude: {both[0]} is also in --nodelist")
    if len(gres_gpu) > 1:
        raise RequestError("--gres: several whole-GPU items; request one GPU type")

    if raw.gpus_per_task is not None:
        if raw.gpus is not None or raw.gpus_per_node is not None or gres_gpu:
            raise RequestError("--gpus-per-task: give GPUs one way (--gpus, --gpus-per-node, --gres or per task)")
        raw.gpus = GpuItem(raw.gpus_per_task.what, raw.gpus_per_task.count * (raw.ntasks or 1),
                           raw.gpus_per_task.gpu_type, raw.gpus_per_task.profile)  # fmt: skip
        flags = [raw.gpus]
        whole = [raw.gpus] if raw.gpus.what == "gpu" else []
        mig_given = mig_given or raw.gpus.what == "mig"
    fields_: dict = {}
    if gres_shard or raw.gpu_milli is not None:
        # --gpus=TYPE:1 may name the GPU model of a share; anything more is a contradiction
        typed_one = raw.gpus is not None and raw.gpus.what == "gpu" and raw.gpus.count == 1
        others = bool(gres_gpu or gres_mps or gres_mig or ids or raw.gpus_per_node or (raw.gpus and not typed_one))
        fields_ = _share(raw, gres_shard, others, mps_env)
    elif gres_mps:
        if len(gres_mps) > 1:
            raise RequestError("--gres: mps given twice")
        if whole or mig_given or ids:
            raise RequestError("--gres: gpu and mps cannot be requested together")
        pct = gres_mps[0].count
        if pct > 100 and not raw.mps_any:
            raise RequestError(f"--gres: mps:{pct} asks for more than 100 % of one GPU")
        if mps_env is not None and mps_env != pct:
            raise RequestError(f"{MPS_PERCENT_VAR}={mps_env} disagrees with --gres=mps:{pct}")
        if raw.exclusive:
            raise RequestError("--exclusive: not supported with MPS shares")
        fields_ = {"kind": "mps", "mps_percent": pct, "gpus_per_node": 1, "nodes": raw.nodes}
    elif mig_given:
        fields_ = _mig(raw, gres_mig, whole, ids is not None, mps_env)
    elif ids is not None:
        if whole:
            raise RequestError("--gpu-ids: device indices cannot be combined with a GPU count")
        if len(raw.nodelist) != 1:
            raise RequestError("--gpu-ids: device indices need exactly one node in --nodelist")
        if (raw.nodes or 1) != 1:
            raise RequestError("--nodes: device indices name GPUs of one node")
        if raw.exclusive:
            raise RequestError("--exclusive: not supported with device indices")
        if mps_env is not None:
            raise RequestError(f"{MPS_PERCENT_VAR}: MPS on explicit device indices is not supported")
        fields_ = {"kind": "device", "gpu_ids": ids, "nodes": 1}
    else:
        gpu_type = _one_type(whole)
        per_node = raw.gpus_per_node if raw.gpus_per_node is not None else (gres_gpu[0] if gres_gpu else None)
        if raw.gpus_per_node is not None and gres_gpu and raw.gpus_per_node.count != gres_gpu[0].count:
            raise RequestError("--gpus-per-node disagrees with --gres=gpu:N")
        k = per_node.count if per_node else None
        g = raw.gpus.count if raw.gpus else None
        n = raw.nodes
        if mps_env is not None:
            if k is None and g is not None and (n or 1) == 1:
                k = g
            if k is None:
                raise RequestError(f"{MPS_PERCENT_VAR}: an MPS share needs --gpus-per-node=K")
            if raw.exclusive:
                raise RequestError("--exclusive: not supported with MPS shares")
            fields_ = {"kind": "mps", "mps_percent": mps_env, "gpus_per_node": k, "gpu_type": gpu_type, "nodes": n}
        elif k is not None:
            if g is not None:
                if n is not None and g != k * n:
                    raise RequestError(f"--gpus={g} does not equal --nodes={n} x --gpus-per-node={k}")
                if g % k:
                    raise RequestError(f"--gpus={g} is not a multiple of --gpus-per-node={k}")
                n = g // k
            fields_ = {"kind": "count", "gpus_per_node": k, "gpu_type": gpu_type, "nodes": n}
        elif g is not None:
            if n is not None and n > g:
                raise RequestError(f"--nodes={n} cannot share --gpus={g} (each node needs at least one)")
            fields_ = {"kind": "count", "gpus": g, "gpu_type": gpu_type, "nodes": n}
        elif raw.exclusive:
            fields_ = {"kind": "nodes", "nodes": n}
        else:
            if raw.cpus_per_gpu is not None:
                raise RequestError("--cpus-per-gpu: the job asks for no GPU (use --cpus-per-task)")
            if raw.mem_per_gpu_mib is not None:
                raise RequestError("--mem-per-gpu: the job asks for no GPU (use --mem or --mem-per-cpu)")
            fields_ = {"kind": "cpu", "nodes": n}
        fields_["exclusive"] = raw.exclusive
    kind = fields_["kind"]
    need_nodes = fields_.get("nodes")
    if raw.nodelist and need_nodes is not None and need_nodes < len(raw.nodelist):
        raise RequestError(f"--nodes={need_nodes} is fewer than the {len(raw.nodelist)} nodes in --nodelist")
    if need_nodes is None and (kind != "count" or fields_.get("gpus_per_node") is not None):
        fields_["nodes"] = max(1, len(raw.nodelist))
    return JobRequest(
        **fields_,
        nodelist=raw.nodelist,
        exclude=raw.exclude,
        time_limit_s=raw.time_limit_s,
        mem_per_gpu_mib=raw.mem_per_gpu_mib,
        mem_per_cpu_mib=raw.mem_per_cpu_mib,
        mem_mib=raw.mem_mib,
        gpu_mem_mib=raw.gpu_mem_mib,
        constraint=raw.constraint,
        ntasks=raw.ntasks,
        ntasks_per_node=raw.ntasks_per_node,
        cpus_per_task=raw.cpus_per_task,
        cpus_per_gpu=raw.cpus_per_gpu,
        cpu_milli=raw.cpu_milli,
        name=raw.name,
        priority=raw.priority,
        nice=raw.nice,
        dependencies=raw.dependencies,
        environment=tuple(sorted(raw.environment.items())),
        ignored=tuple(raw.ignored),
        command=tuple(raw.command),
        held=raw.held,
        begin=raw.begin,
    )
