"""Slurm's view of the cluster as a :class:`ClusterSnapshot`: one node per Slurm node, one GPU per GRES GPU index.

Slurm knows which GPUs exist and who holds them, nothing about their load: every live value (utilization,
memory, temperature, ...) is N/A. Each node carries Slurm's CPUs and memory (configured and allocated) and its
features; memory in use is the operating system's view, which Slurm does not give. A MIG-typed GRES
(``gpu:1g.10gb``) is one MIG device: it is shown as a GPU in MIG mode holding one GPU instance of that profile,
so that views badge it as MIG.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot, NodeResources, NodeSnapshot
from gputui.slurm.formats.gres import mig_profile
from gputui.slurm.formats.job_info import SlurmJob
from gputui.slurm.formats.nodes import SlurmNode

#: GRES that share a GPU among jobs; their totals and use are kept per node.
SHARED_GRES = ("mps", "shard")
#: The GPU instance id given to the one instance of a MIG-typed GRES device (Slurm does not report one).
MIG_GI_ID = 0
#: Job states in which a job holds its allocation.
HOLDING = frozenset({"RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "CONFIGURING", "SIGNALING", "RESIZING"})


def gpu_layout(node: SlurmNode) -> list[tuple[int, str | None]]:
    """(index, GRES type) of each GPU: Slurm numbers a node's GPUs through its GRES list in order."""
    out: list[tuple[int, str | None]] = []
    for item in node.gres:
        if item.name == "gpu" and item.count:
            base = len(out)
            out.extend((base + k, item.type) for k in range(item.count))
    return out


def holding(jobs: Iterable[SlurmJob]) -> list[SlurmJob]:
    return [j for j in jobs if j.state in HOLDING and j.gres_alloc]


def held_gpus(jobs: Iterable[SlurmJob]) -> dict[tuple[str, int], list[int]]:
    """(node, GPU index) -> the jobs holding it (several for MPS or shard sharers), from the jobs' IDX."""
    out: dict[tuple[str, int], list[int]] = {}
    for job in holding(jobs):
        for node, items in job.gres_alloc:
            for item in items:
                for i in item.indices or ():
                    out.setdefault((node, i), []).append(job.id)
    return out


def unattributed(nodes: Iterable[SlurmNode], jobs: Iterable[SlurmJob]) -> frozenset[tuple[str, int]]:
    """GPUs that a node reports in use (``GresUsed``) but no visible job holds: jobs hidden by PrivateData."""
    held = held_gpus(jobs)
    out: set[tuple[str, int]] = set()
    for n in nodes:
        for item in n.gres_used or ():
            if item.name == "gpu":
                out.update((n.name, i) for i in item.indices or () if (n.name, i) not in held)
    return frozenset(out)


def shares(node: SlurmNode, jobs: Sequence[SlurmJob]) -> tuple[tuple[str, int, int | None], ...]:
    """(name, total, used) of the node's shared GRES; used is summed over the jobs holding some here."""
    out = []
    for item in node.gres:
        if item.name in SHARED_GRES and item.count is not None:
            used = sum(
                x.count or 0
                for j in jobs
                for n, items in j.gres_alloc
                if n == node.name
                for x in items
                if x.name == item.name
            )
            out.append((item.name, item.count, used))
    return tuple(out)


def resources(node: SlurmNode) -> NodeResources | None:
    """Slurm's CPUs and memory of the node, None when it gave none of them."""
    res = NodeResources(node.cpus, node.memory_mib, node.cpus_alloc, node.memory_alloc_mib)
    return None if res == NodeResources() else res


def node_snapshot(node: SlurmNode, jobs: Sequence[SlurmJob]) -> NodeSnapshot:
    gpus = []
    for index, gtype in gpu_layout(node):
        profile = mig_profile(gtype)
        if profile is not None:
            gi = GpuInstance(MIG_GI_ID, profile)
            gpus.append(GpuSnapshot(index, name=gtype, mig_mode_current=True, gpu_instances=(gi,)))
        else:
            gpus.append(GpuSnapshot(index, name=gtype))
    return NodeSnapshot(
        node.name,
        tuple(gpus),
        state=node.state,
        shares=shares(node, jobs),
        resources=resources(node),
        features=node.features,
    )


def build_snapshot(
    nodes: Sequence[SlurmNode], jobs: Sequence[SlurmJob], timestamp: float, source: str
) -> ClusterSnapshot:
    running = holding(jobs)
    return ClusterSnapshot(timestamp, tuple(node_snapshot(n, running) for n in nodes), source)
