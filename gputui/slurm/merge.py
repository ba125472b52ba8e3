"""Live NVML values for the Slurm node that is this machine, keeping Slurm's GPU identities and job holdings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gputui.core.model import ClusterSnapshot, NodeSnapshot
from gputui.slurm.formats.nodes import SlurmNode


def local_node(nodes: Sequence[SlurmNode], host: str) -> SlurmNode | None:
    """The Slurm node that is ``host``: by node name first, else by NodeHostname / NodeAddr; None when no node
    or several match (several nodes emulated on one machine cannot be told apart)."""
    short = host.split(".")[0]
    by_name = [n for n in nodes if n.name in (host, short)]
    if by_name:
        return by_name[0] if len(by_name) == 1 else None
    by_host = [
        n for n in nodes
        if host in (n.hostname, n.address) or (n.hostname is not None and n.hostname.split(".")[0] == short)
    ]  # fmt: skip
    return by_host[0] if len(by_host) == 1 else None


def merge_node(slurm: NodeSnapshot, live: NodeSnapshot) -> NodeSnapshot:
    """Slurm's node with NVML's GPU readings, matched by index, and the machine's memory in use beside Slurm's
    CPUs and memory (Slurm's sizes win: they are what it schedules against).

    A MIG-typed GRES keeps Slurm's entry: its index counts MIG devices, not the physical GPUs NVML numbers.
    GPUs NVML sees but Slurm does not manage are left out, as no job can get them through Slurm.
    """
    by_index = {g.index: g for g in live.gpus}
    gpus = []
    for g in slurm.gpus:
        lg = by_index.get(g.index)
        gpus.append(g if lg is None or g.mig_mode_current else lg)
    res = slurm.resources
    if live.resources is not None:
        res = live.resources if res is None else replace(res, memory_used_mib=live.resources.memory_used_mib)
    return replace(
        slurm, gpus=tuple(gpus), driver_version=live.driver_version, cuda_version=live.cuda_version, resources=res
    )


def merge(snapshot: ClusterSnapshot, node_name: str, live: ClusterSnapshot) -> ClusterSnapshot:
    if not live.nodes:
        return snapshot
    nodes = tuple(merge_node(n, live.nodes[0]) if n.name == node_name else n for n in snapshot.nodes)
    return replace(snapshot, nodes=nodes)
