"""Random (FGD's baseline): a feasible node drawn uniformly, and a GPU drawn uniformly among those that take a share.

There is no score: the simulator draws from the benchmark's random stream (``rand.Intn`` over the feasible nodes in
tie-break order, when more than one is feasible; for a share, reservoir sampling over the GPUs that take it).
FGD's own simulator draws from the same stream in parallel filters, so no run reproduces its Random bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

from gputui.core.scheduler.policies.shapes import NodeFree, PodShape, default_gpus


def random_gpu(node: NodeFree, pod: PodShape, intn: Callable[[int], int]) -> tuple[int, ...]:
    """For a share: each GPU that takes it replaces the choice with probability 1/(GPUs seen so far)."""
    if not pod.share:
        return default_gpus(node, pod)
    chosen = -1
    seen = 0
    for i, g in enumerate(node.gpus):
        if g >= pod.gpu_milli:
            seen += 1
            if intn(seen) == 0:
                chosen = i
    return (chosen,)


class RandomTrace:
    name = "random"
    uses_affinity = False
    randomised = True

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return 0, default_gpus(node, pod)
