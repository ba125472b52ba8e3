"""dcgm-exporter's labels for a GPU and a MIG instance, as its 4.x releases (up to 4.5.3-4.8.2) print them.

Names and order follow dcgm-exporter's render template: ``gpu``, ``UUID``, ``pci_bus_id``, ``device``,
``modelName``, ``GPU_I_PROFILE`` / ``GPU_I_ID`` for a MIG instance, ``Hostname``, then the label fields
(``DCGM_FI_DRIVER_VERSION``). ``device`` is ``nvidia<index>``, as dcgm-exporter forms it from the GPU's index.
A label whose value the source lacks is left out rather than given an empty or made-up value. Each set is
rendered to text once per frame (see text_format).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gputui.core.model import GpuInstance, GpuSnapshot, NodeSnapshot
from gputui.core.plain_text import sanitise
from gputui.export.attribution import Holder
from gputui.export.text_format import braces, part


@dataclass(frozen=True, slots=True)
class LabelSet:
    """Rendered ``name="value"`` parts: those before ``Hostname`` (``head``) and from it on (``tail``), so that a
    MIG instance's labels go where dcgm-exporter puts them."""

    head: tuple[str, ...]
    tail: tuple[str, ...]
    text: str  # the whole set, rendered: braces(head + tail)

    @staticmethod
    def of(head: tuple[str, ...], tail: tuple[str, ...]) -> LabelSet:
        return LabelSet(head, tail, braces(head + tail))

    def plus(self, *extra: str) -> str:
        return braces(self.head + self.tail + extra)

    def with_holders(self, holders: list[Holder] | None) -> list[str]:
        """One label text per holding job (as dcgm-exporter's HPC job mapping repeats a series per job), or the
        labels alone when no job holds it."""
        if not holders:
            return [self.text]
        return [self.plus(*h.parts) for h in holders]

    def instance(self, gi: GpuInstance) -> LabelSet | None:
        """The labels of a MIG GPU instance; None when it has no id or profile to name it by."""
        if gi.gi_id is None or not gi.profile:
            return None
        return _instance(self, gi.profile, gi.gi_id)


def gpu_labels(node: NodeSnapshot, gpu: GpuSnapshot) -> LabelSet:
    return _gpu_labels(node.name, node.driver_version, gpu.index, gpu.uuid, gpu.pci_bus_id, gpu.name)


@lru_cache(maxsize=65536)
def _gpu_labels(host: str, driver: str | None, index: int, uuid: str | None, bus: str | None,
                model: str | None) -> LabelSet:  # fmt: skip
    """Cached: a GPU's identity stays the same from frame to frame."""
    head = [part("gpu", str(index))]
    if uuid:
        head.append(part("UUID", sanitise(uuid)))
    if bus:
        head.append(part("pci_bus_id", sanitise(bus)))
    head.append(part("device", f"nvidia{index}"))
    if model:
        head.append(part("modelName", sanitise(model)))
    tail = [part("Hostname", sanitise(host))]
    if driver:
        tail.append(part("DCGM_FI_DRIVER_VERSION", sanitise(driver)))
    return LabelSet.of(tuple(head), tuple(tail))


@lru_cache(maxsize=65536)
def _instance(labels: LabelSet, profile: str, gi_id: int) -> LabelSet:
    extra = (part("GPU_I_PROFILE", sanitise(profile)), part("GPU_I_ID", str(gi_id)))
    return LabelSet.of(labels.head + extra, labels.tail)
