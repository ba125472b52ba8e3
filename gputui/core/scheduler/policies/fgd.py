"""FGD (Weng et al., USENIX ATC 2023): the placement that grows the node's fragmentation the least.

score = trunc(100 x sigmoid((F(n) - F(n')) / 1000)), F as in :mod:`frag` and n' the node after the placement: for a
share, each GPU that takes it is tried and the best kept (the lowest index on ties); whole GPUs are the first idle
ones; a CPU-only pod changes only the CPUs. The truncation makes many ties, which the tie-break order settles.
"""

from __future__ import annotations

import math

from gputui.core.scheduler.policies.frag import Fragmenter
from gputui.core.scheduler.policies.shapes import MILLI, NodeFree, PodShape, whole_gpus


def sigmoid_score(before: float, after: float) -> int:
    return int(1.0 / (1.0 + math.exp(-((before - after) / 1000))) * 100)


def evaluate(node: NodeFree, pod: PodShape, frag: Fragmenter) -> tuple[int, tuple[int, ...]]:
    cpu_after = node.cpu_milli - pod.cpu_milli
    gpus, model = node.gpus, node.model
    before = frag.of(node.cpu_milli, gpus, model)
    if pod.share:
        best, choice = 0, -1
        for i, g in enumerate(gpus):
            if g >= pod.gpu_milli:
                after = gpus[:i] + (g - pod.gpu_milli,) + gpus[i + 1 :]
                s = sigmoid_score(before, frag.of(cpu_after, after, model))
                if choice < 0 or s > best:
                    best, choice = s, i
        return best, (choice,)
    if pod.num_gpu == 0 or pod.gpu_milli == 0:
        return sigmoid_score(before, frag.of(cpu_after, gpus, model)), ()
    take = whole_gpus(gpus, pod.num_gpu)
    after_l = list(gpus)
    for i in take:
        after_l[i] -= MILLI
    return sigmoid_score(before, frag.of(cpu_after, tuple(after_l), model)), take


class FgdTrace:
    name = "fgd"
    uses_affinity = False
    randomised = False

    def __init__(self, frag: Fragmenter) -> None:
        self.frag = frag

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return evaluate(node, pod, self.frag)
