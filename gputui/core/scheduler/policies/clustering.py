"""GPU clustering (FGD's baseline): pods of one kind (shares, 1-GPU, 2-GPU, ...) together, fuller nodes first.

Bands of 25 points: (75, 100] a node holding only pods of this kind, (50, 75] of this and other kinds, (25, 50] no GPU
pod yet, (0, 25] only other kinds; inside a band, 25 x (8000 - the node's free thousandths) / 8000 (integers). A
CPU-only pod scores 0 everywhere. GPUs as BestFit chooses them.
"""

from __future__ import annotations

from gputui.core.scheduler.policies.shapes import MAX_GPU_MILLI, NodeFree, PodShape, default_gpus


def score(node: NodeFree, pod: PodShape) -> int:
    kind = pod.affinity
    if not kind:
        return 0
    fill = 25 * (MAX_GPU_MILLI - sum(node.gpus)) // MAX_GPU_MILLI
    kinds = dict(node.affinity)
    if kinds.get(kind, 0) > 0:
        return fill + (75 if len(kinds) == 1 else 50)
    return fill + (25 if not kinds else 0)


class ClusteringTrace:
    name = "clustering"
    uses_affinity = True
    randomised = False

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return score(node, pod), default_gpus(node, pod)
