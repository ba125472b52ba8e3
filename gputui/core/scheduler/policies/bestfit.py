"""BestFit (FGD's baseline): the node left with the least CPU and GPU, each normalised to the largest node.

score = trunc(100 x (1 - 0.5 x (cpu_free - cpu_req) / 128000 - 0.5 x (gpu_free - gpu_req) / 8000)), with gpu_free
the node's total free thousandths of GPU; a share goes to the tightest GPU that takes it, whole GPUs to the first
idle ones.
"""

from __future__ import annotations

from gputui.core.scheduler.policies.shapes import MAX_CPU_MILLI, MAX_GPU_MILLI, NodeFree, PodShape, default_gpus


def score(node: NodeFree, pod: PodShape) -> int:
    s = 0.0
    s += (node.cpu_milli - pod.cpu_milli) / MAX_CPU_MILLI * 0.5
    s += (sum(node.gpus) - pod.total_gpu_milli) / MAX_GPU_MILLI * 0.5
    return int((1.0 - s) * 100)


class BestFitTrace:
    name = "bestfit"
    uses_affinity = False
    randomised = False

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return score(node, pod), default_gpus(node, pod)
