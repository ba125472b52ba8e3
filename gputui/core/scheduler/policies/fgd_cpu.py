"""fgd-cpu (gputui's own): FGD's gradient over a CPU-aware fragmentation measure.

The score and the GPU choice are FGD's (:mod:`fgd`: trunc(100 x sigmoid(dF / 1000)), ties by the tie-break order),
but F counts as usable only the GPUs that the node's remaining CPUs can still feed (:func:`frag.fragment_cpu_aware`).
FGD's own F treats a node with 8 idle GPUs and 12 CPUs left as fully usable by 11-CPU GPU pods, though only one such
pod fits; so it lets CPU-hungry pods strand GPUs. What each idea tried gave is in docs/simulate.md.
"""

from __future__ import annotations

from gputui.core.scheduler.policies import fgd
from gputui.core.scheduler.policies.frag import Fragmenter
from gputui.core.scheduler.policies.shapes import NodeFree, PodShape


class FgdCpuTrace:
    name = "fgd-cpu"
    uses_affinity = False
    randomised = False

    def __init__(self, frag: Fragmenter) -> None:
        self.frag = Fragmenter(frag.shapes, cpu_aware=True)

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return fgd.evaluate(node, pod, self.frag)
