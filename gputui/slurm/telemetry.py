"""Slurm's allocations with each node's live GPU readings from another source (SSH): one pure merge.

Slurm numbers a node's GPUs by its GRES index (IDX); the telemetry numbers them as nvidia-smi does. The two agree
when gres.conf lists the devices in nvidia-smi's order (AutoDetect=nvml does); where both sides know a GPU's UUID
they are matched by it instead, and a disagreement is noted rather than shown wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot


@dataclass(frozen=True, slots=True)
class Merged:
    snapshot: ClusterSnapshot
    notes: tuple[str, ...] = ()  # one line per node whose GPUs did not line up


def merge_node(slurm: NodeSnapshot, live: NodeSnapshot) -> tuple[NodeSnapshot, str | None]:
    """Slurm's node with the live readings of its GPUs, and a note when they do not line up.

    A GPU is matched by UUID where both know it, else by Slurm's index; a MIG-typed GRES keeps Slurm's entry (its
    index counts MIG devices). A node whose telemetry is down keeps Slurm's GPUs and carries the fault.
    """
    if live.fault is not None:
        return replace(slurm, fault=live.fault), None
    by_index = {g.index: g for g in live.gpus}
    by_uuid = {g.uuid: g for g in live.gpus if g.uuid}
    gpus: list[GpuSnapshot] = []
    problems: list[str] = []
    for g in slurm.gpus:
        if g.mig_mode_current:
            gpus.append(g)
            continue
        lg = by_uuid.get(g.uuid) if g.uuid else None
        if lg is None:
            lg = by_index.get(g.index)
            if lg is not None and g.uuid and lg.uuid and lg.uuid != g.uuid:
                problems.append(f"GPU {g.index}: Slurm's UUID {g.uuid} is not on the host")
                gpus.append(g)
                continue
        if lg is None:
            problems.append(f"GPU {g.index}: not seen on the host")
            gpus.append(g)
            continue
        gpus.append(replace(lg, index=g.index, name=lg.name or g.name))
    if len(live.gpus) > len(slurm.gpus):
        problems.append(f"the host has {len(live.gpus)} GPUs, Slurm manages {len(slurm.gpus)}")
    node = replace(
        slurm,
        gpus=tuple(gpus),
        driver_version=live.driver_version or slurm.driver_version,
        cuda_version=live.cuda_version or slurm.cuda_version,
        fault=None,
    )
    note = f"{slurm.name}: {'; '.join(problems)}" if problems else None
    return node, note


def merge_telemetry(slurm: ClusterSnapshot, live: ClusterSnapshot) -> Merged:
    """Every Slurm node merged with the live node of the same name; nodes the telemetry lacks stay as Slurm gave."""
    by_name = {n.name: n for n in live.nodes}
    nodes: list[NodeSnapshot] = []
    notes: list[str] = []
    for n in slurm.nodes:
        ln = by_name.get(n.name)
        if ln is None:
            nodes.append(n)
            continue
        merged, note = merge_node(n, ln)
        nodes.append(merged)
        if note:
            notes.append(note)
    return Merged(replace(slurm, nodes=tuple(nodes)), tuple(notes))
