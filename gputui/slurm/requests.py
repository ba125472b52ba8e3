"""A Slurm job's request and allocation in gputui's terms: an option string the embedded scheduler's parser
accepts (rebuilt from the job's TRES request, node count, limits, node lists) and an :class:`Allocation` built
from the GPU indices Slurm gave it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.hostlist import compress_hostlist
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.request import JobRequest
from gputui.slurm.formats.gres import gres_text, parse_tres_gres
from gputui.slurm.formats.job_info import SlurmJob
from gputui.slurm.snapshot import MIG_GI_ID

#: What a job whose request gputui cannot express (CPU only, shards, GPUs per task) is recorded as.
UNEXPRESSED = JobRequest(kind="count", gpus=0)


def _limit(seconds: int) -> str:
    minutes = max(1, seconds // 60)
    d, rest = divmod(minutes, 1440)
    h, m = divmod(rest, 60)
    return f"{d}-{h:02d}:{m:02d}:00" if d else f"{h:02d}:{m:02d}:00"


def _dependency(text: str) -> str | None:
    """``afterok:8(unfulfilled)`` -> ``afterok:8``; Slurm's annotations are dropped."""
    cleaned = re.sub(r"\([^)]*\)", "", text).strip()
    return cleaned or None


def options_words(job: SlurmJob) -> list[str] | None:
    """Option words for the job's GPU request, or None when it cannot be said in gputui's options."""
    if job.tres_per_task or job.tres_per_socket:
        return None
    per_node = parse_tres_gres(job.tres_per_node)
    per_job = parse_tres_gres(job.tres_per_job)
    words: list[str] = []
    if per_node:
        if any(i.name not in ("gpu", "mps") for i in per_node):
            return None
        words.append("--gres=" + ",".join(gres_text(i) for i in per_node))
    for item in per_job:
        if item.name != "gpu" or item.count is None:
            return None
        words.append(f"--gpus={item.type + ':' if item.type else ''}{item.count}")
    cpus = -(-job.cpus // max(1, job.node_count or 1)) if job.cpus else None  # on each of its nodes
    if not words and not job.exclusive:
        if cpus is None:
            return None
        words.append(f"--cpus-per-task={cpus}")  # a CPU-only job
    elif cpus and cpus > 1 and not job.exclusive:
        words.append(f"--cpus-per-task={cpus}")
    cpu_only = bool(words) and words[0].startswith("--cpus")
    if job.node_count and (job.node_count > 1 or job.exclusive or cpu_only):
        words.append(f"--nodes={job.node_count}")
    if job.exclusive:
        words.append("--exclusive")
    if job.required_nodes:
        words.append("--nodelist=" + compress_hostlist(job.required_nodes))
    if job.excluded_nodes:
        words.append("--exclude=" + compress_hostlist(job.excluded_nodes))
    # 22.05 prints null for both "unset" and "infinite"; a queued job always has a limit, so null is infinite
    words.append("--time=" + (_limit(job.time_limit_s) if job.time_limit_s is not None else "UNLIMITED"))
    if job.name:
        words.append("--job-name=" + job.name)
    if job.dependency and (dep := _dependency(job.dependency)):
        words.append("--dependency=" + dep)
    return words


def request_of(job: SlurmJob) -> tuple[str, JobRequest]:
    """(option string, request); a request gputui cannot express gives Slurm's TRES text and :data:`UNEXPRESSED`."""
    words = options_words(job)
    if words is not None:
        try:
            return shlex.join(words), parse_options(words)
        except RequestError:
            pass
    said = ", ".join(t for t in (job.tres_per_node, job.tres_per_job, job.tres_per_task) if t) or "no GPUs"
    return f"({said})", UNEXPRESSED


def allocation_of(job: SlurmJob, mps_per_gpu: Mapping[str, int]) -> Allocation | None:
    """What the job holds, GPU by GPU, from its IDX lists; ``mps_per_gpu`` is each node's MPS count per GPU.

    A MIG-typed GRES becomes the one GPU instance of that device; an MPS count a share in per cent of its GPU.
    Shards are not drawn: gputui has no grant for them.
    """
    if not job.gres_alloc and not job.nodes:
        return None
    by_node = dict(job.gres_alloc)
    nodes = []
    for node in job.nodes:
        grants: dict[int, GpuGrant] = {}
        for item in by_node.get(node, ()):
            for i in item.indices or ():
                if item.name == "gpu":
                    profile = item.mig_profile
                    mig = MigGrant(MIG_GI_ID, profile, None, None) if profile else None
                    grants[i] = GpuGrant(i, mig=mig)
                elif item.name == "mps" and item.count:
                    per_gpu = mps_per_gpu.get(node) or 100
                    pct = max(1, round(item.count * 100 / per_gpu))
                    grants.setdefault(i, GpuGrant(i, mps_percent=pct))
        nodes.append(NodeGrant(node, tuple(grants[i] for i in sorted(grants)), exclusive=job.exclusive))
    return Allocation(tuple(nodes))
