"""DotProd (FGD's baseline, after Tetris): the node whose free resources align least with the request.

Both vectors are (CPU, total GPU) normalised by the largest node (128 CPUs, 8 GPUs); score = trunc(100 x (1 - the
dot product / 2)), computed on what the node has free before the placement. GPUs as BestFit chooses them.
"""

from __future__ import annotations

from gputui.core.scheduler.policies.shapes import MAX_CPU_MILLI, MAX_GPU_MILLI, NodeFree, PodShape, default_gpus


def score(node: NodeFree, pod: PodShape) -> int:
    dot = 0.0
    dot += (node.cpu_milli / MAX_CPU_MILLI) * (pod.cpu_milli / MAX_CPU_MILLI)
    dot += (sum(node.gpus) / MAX_GPU_MILLI) * (pod.total_gpu_milli / MAX_GPU_MILLI)
    return int(100 * (1 - dot / 2))


class DotProdTrace:
    name = "dotprod"
    uses_affinity = False
    randomised = False

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return score(node, pod), default_gpus(node, pod)
