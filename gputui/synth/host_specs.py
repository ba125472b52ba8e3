"""Host CPUs and memory of simulated GPU nodes, and the memory their jobs keep in use.

Sizes are the usual builds of each GPU model (:mod:`gputui.core.host_builds`). Nothing here is random, so the
frames of a seeded timeline do not change when these figures do.
"""

from __future__ import annotations

from collections.abc import Iterable

from gputui.core.host_builds import host_build
from gputui.core.model import NodeResources
from gputui.synth.jobs import Rank

GIB = 1024  # MiB
#: memory the kernel, the driver and the node's daemons hold with no job running
BASE_USED_MIB = 6 * GIB


def host_for(gpu_name: str, gpu_count: int) -> NodeResources:
    """The node's CPUs and memory, the usual build for its GPUs (no allocation: no workload manager here)."""
    cpus, mib = host_build(gpu_name, gpu_count)
    return NodeResources(cpus=cpus, memory_mib=mib)


def rank_host_mib(rank: Rank) -> int:
    """Host memory one process keeps: its runtime, pinned staging buffers about twice its GPU memory, and
    data-loader buffers that grow with its load (in steps, as workers come and go)."""
    small = rank.target.is_mps or rank.target.gi_id is not None  # a shared GPU's clients stage less
    return 1536 + rank.mem * (1 if small else 2) + int(rank.util) // 10 * 512


def memory_used(total_mib: int, ranks: Iterable[Rank]) -> int:
    """MemTotal minus MemAvailable on the node while ``ranks`` run, never above the total."""
    return min(total_mib, BASE_USED_MIB + sum(rank_host_mib(r) for r in ranks))
