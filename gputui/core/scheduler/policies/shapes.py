"""What the trace-driven scoring functions see: a node's free resources and a pod's request, as plain integers.

The same resource model as the live scheduler (``place/``): CPUs in thousandths, memory in MiB, each GPU's free
thousandths in index order (1000 = idle, a whole-GPU job takes 1000, a fractional one its ``gpu_milli``), the GPU
model for type constraints. :func:`fits` is the filter every policy shares; :func:`take` gives the node after a
placement. A node's ``affinity`` (which kinds of GPU pods it holds) is only filled for the policies that read it.
"""

from __future__ import annotations

from typing import NamedTuple

MILLI = 1000
#: FGD's normalisers (the largest node of the openb cluster): 128 CPUs, 8 GPUs, in thousandths.
MAX_CPU_MILLI = 128_000
MAX_GPU_MILLI = 8_000


class PodShape(NamedTuple):
    """A request: CPUs (thousandths), memory (MiB), GPUs, thousandths per GPU, allowed GPU models (empty: any)."""

    cpu_milli: int
    mem_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_spec: frozenset[str] = frozenset()

    @property
    def share(self) -> bool:
        """A fractional GPU: one GPU, less than all of it."""
        return self.num_gpu == 1 and self.gpu_milli < MILLI

    @property
    def total_gpu_milli(self) -> int:
        return self.num_gpu * self.gpu_milli

    @property
    def affinity(self) -> str:
        """The kind of GPU pod, as GPU clustering groups them: "" (CPU only), "share", "1-gpu", "2-gpu", ..."""
        if self.num_gpu == 0 or self.gpu_milli == 0:
            return ""
        return "share" if self.share else f"{self.num_gpu}-gpu"


class NodeFree(NamedTuple):
    """A node's free resources: CPUs (thousandths), memory (MiB), each GPU's free thousandths, model, and (only for
    policies that read it) the kinds of GPU pods it holds as sorted (kind, count) pairs."""

    cpu_milli: int
    mem_mib: int
    gpus: tuple[int, ...]
    model: str = ""
    affinity: tuple[tuple[str, int], ...] = ()


def allowed(node: NodeFree, pod: PodShape) -> bool:
    """The pod's GPU model constraint admits the node (a CPU-only pod goes anywhere)."""
    return not pod.gpu_spec or pod.num_gpu == 0 or node.model in pod.gpu_spec


def gpu_fits(gpus: tuple[int, ...], num_gpu: int, milli: int) -> bool:
    """At least ``num_gpu`` GPUs have ``milli`` thousandths free (for whole GPUs: are idle)."""
    if num_gpu == 0:
        return True
    n = 0
    for g in gpus:
        if g >= milli:
            n += 1
            if n >= num_gpu:
                return True
    return False


def fits(node: NodeFree, pod: PodShape) -> bool:
    """The filter: CPUs and memory fit, the model is allowed, a share has one GPU with room, k whole GPUs are idle."""
    if pod.cpu_milli > node.cpu_milli or pod.mem_mib > node.mem_mib:
        return False
    if pod.num_gpu == 0 or pod.gpu_milli == 0:
        return True
    if not allowed(node, pod):
        return False
    return gpu_fits(node.gpus, pod.num_gpu, pod.gpu_milli if pod.share else MILLI)


def whole_gpus(gpus: tuple[int, ...], num_gpu: int) -> tuple[int, ...]:
    """The first ``num_gpu`` idle GPUs by index (how a whole-GPU pod is given its devices)."""
    out = []
    for i, g in enumerate(gpus):
        if g == MILLI:
            out.append(i)
            if len(out) == num_gpu:
                break
    return tuple(out)


def tightest_gpu(gpus: tuple[int, ...], milli: int) -> int:
    """The GPU with the least room that still takes ``milli`` (the lowest index on ties); -1 if none."""
    best = -1
    for i, g in enumerate(gpus):
        if g >= milli and (best < 0 or g < gpus[best]):
            best = i
    return best


def default_gpus(node: NodeFree, pod: PodShape) -> tuple[int, ...]:
    """The devices a pod gets where the policy has no opinion: tightest GPU for a share, first idle ones else."""
    if pod.num_gpu == 0 or pod.gpu_milli == 0:
        return ()
    if pod.share:
        return (tightest_gpu(node.gpus, pod.gpu_milli),)
    return whole_gpus(node.gpus, pod.num_gpu)


def take(node: NodeFree, pod: PodShape, gpus: tuple[int, ...], sign: int = 1) -> NodeFree:
    """The node after the pod is placed on it with ``gpus`` (``sign`` -1: after it left again)."""
    free = list(node.gpus)
    per = pod.gpu_milli if pod.share else MILLI
    for i in gpus:
        free[i] -= sign * per
    aff = node.affinity
    kind = pod.affinity
    if aff or (kind and sign > 0):
        counts = dict(aff)
        if kind:
            counts[kind] = counts.get(kind, 0) + sign
            if counts[kind] <= 0:
                del counts[kind]
        aff = tuple(sorted(counts.items()))
    return NodeFree(
        node.cpu_milli - sign * pod.cpu_milli, node.mem_mib - sign * pod.mem_mib, tuple(free), node.model, aff
    )


def idle_milli(gpus: tuple[int, ...]) -> int:
    return sum(gpus)


def idle_gpus(gpus: tuple[int, ...]) -> int:
    return sum(1 for g in gpus if g == MILLI)
