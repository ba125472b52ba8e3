"""GPU packing (FGD's baseline): shared GPUs first, then idle GPUs of used nodes, then idle nodes.

From high to low: a share that fits on partly used GPUs, 100 - (their free per cent) / 10, at least 50; a pod that
needs idle GPUs of a node already in use, 50 - the idle GPUs it takes, at least 33; a node with every GPU idle,
33 - its GPUs (but at least that number). A CPU-only pod scores 0 everywhere. GPUs as BestFit chooses them.
"""

from __future__ import annotations

from gputui.core.scheduler.policies.shapes import MILLI, NodeFree, PodShape, default_gpus


def score(node: NodeFree, pod: PodShape) -> int:
    if pod.total_gpu_milli <= 0:
        return 0
    gpus = node.gpus
    idle = sum(1 for g in gpus if g == MILLI)
    if idle == len(gpus):
        return max(100 // 3 - idle, idle)
    want = pod.num_gpu
    per = pod.gpu_milli
    idle_used = 0
    used: list[int] = []
    for i in sorted(range(len(gpus)), key=lambda i: gpus[i]):  # least free first, stable
        if want == 0:
            break
        if per <= gpus[i]:
            want -= 1
            used.append(i)
            if gpus[i] == MILLI:
                idle_used += 1
    if idle_used:
        return max(100 // 2 - idle_used, 100 // 3)
    free_pct = sum(gpus[i] * 100 // MILLI for i in used)
    return max(100 - free_pct // 10, 100 // 2)


class PackingTrace:
    name = "packing"
    uses_affinity = False
    randomised = False

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return score(node, pod), default_gpus(node, pod)
