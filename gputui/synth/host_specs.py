"""Host CPUs and memory of simulated GPU nodes, and the memory their jobs keep in use.

Sizes follow the usual builds of each GPU model: a four-GPU server and an eight-GPU HGX/DGX board (a DGX A100
has 128 cores and 1-2 TiB, a DGX H100 or H200 112 cores and 2 TiB), within 64-128 CPUs and 512 GiB-2 TiB.
Nothing here is random, so the frames of a seeded timeline do not change when these figures do.
"""

from __future__ import annotations

from collections.abc import Iterable

from gputui.core.model import NodeResources
from gputui.synth.jobs import Rank

GIB = 1024  # MiB
#: nvidia-smi product name -> (CPUs, memory in GiB) of a node with up to four GPUs, and of one with more
BUILDS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "NVIDIA A100-SXM4-40GB": ((64, 512), (128, 1024)),
    "NVIDIA A100-SXM4-80GB": ((64, 1024), (128, 2048)),
    "NVIDIA H100 80GB HBM3": ((96, 1024), (112, 2048)),
    "NVIDIA H200": ((96, 1536), (112, 2048)),
}
OTHER = ((64, 512), (128, 1024))
#: memory the kernel, the driver and the node's daemons hold with no job running
BASE_USED_MIB = 6 * GIB


def host_for(gpu_name: str, gpu_count: int) -> NodeResources:
    """The node's CPUs and memory (no allocation: the simulator has no workload manager)."""
    small, large = BUILDS.get(gpu_name, OTHER)
    cpus, gib = small if gpu_count <= 4 else large
    return NodeResources(cpus=cpus, memory_mib=gib * GIB)


def rank_host_mib(rank: Rank) -> int:
    """Host memory one process keeps: its runtime, pinned staging buffers about twice its GPU memory, and
    data-loader buffers that grow with its load (in steps, as workers come and go)."""
    small = rank.target.is_mps or rank.target.gi_id is not None  # a shared GPU's clients stage less
    return 1536 + rank.mem * (1 if small else 2) + int(rank.util) // 10 * 512


def memory_used(total_mib: int, ranks: Iterable[Rank]) -> int:
    """MemTotal minus MemAvailable on the node while ``ranks`` run, never above the total."""
    return min(total_mib, BASE_USED_MIB + sum(rank_host_mib(r) for r in ranks))
