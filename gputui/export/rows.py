"""Each GPU of a frame with its label texts worked out once: alone, with the jobs holding it, per MIG instance."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.model import GpuInstance, GpuSnapshot, NodeSnapshot
from gputui.export.attribution import Attribution, Holder
from gputui.export.labels import LabelSet, gpu_labels


@dataclass(slots=True)
class InstanceRow:
    gi: GpuInstance
    labels: LabelSet
    texts: list[str]  # with the jobs holding the instance
    held: int  # how many jobs hold it


@dataclass(slots=True)
class GpuRow:
    node: NodeSnapshot
    gpu: GpuSnapshot
    labels: LabelSet
    holders: list[Holder] | None  # jobs holding the whole GPU or a share of it
    texts: list[str]  # the labels with each holder (the labels alone when none)
    instances: list[InstanceRow]

    @property
    def jobs(self) -> int:
        """Jobs holding the GPU, a share or an instance of it."""
        return len(self.holders or ()) + sum(i.held for i in self.instances)


def gpu_rows(nodes: tuple[NodeSnapshot, ...], att: Attribution) -> list[GpuRow]:
    rows = []
    for node in nodes:
        for gpu in node.gpus:
            labels = gpu_labels(node, gpu)
            holders = att.gpu.get((node.name, gpu.index))
            instances = []
            for gi in gpu.gpu_instances:
                ls = labels.instance(gi)
                if ls is None:
                    continue
                held = att.gi.get((node.name, gpu.index, gi.gi_id)) if gi.gi_id is not None else None
                instances.append(InstanceRow(gi, ls, ls.with_holders(held), len(held or ())))
            rows.append(GpuRow(node, gpu, labels, holders, labels.with_holders(holders), instances))
    return rows
