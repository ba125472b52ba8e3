"""The free-capacity indexes of the scheduler's cluster state: their keys, their steps and the queries the placers
ask of them (the upkeep on every change is in :mod:`.cluster`).

Per index key ("g:<type>" whole GPUs, "m:<profile>" MIG instances, "mps" MPS-ready GPUs) each node has a count,
and ``buckets[key][c]`` is a bitmask of the nodes whose count is exactly ``c``: finding "a node with at least n
free" is a few integer ANDs, whatever the cluster size. Some keys hold a per-node figure that is not a sum of GPUs:
"mpsroom" (the most percentage left under 100 on one MPS-ready GPU) and, once a request of their kind is seen,
"cpu" and "mem" (free CPUs and host memory, in steps), "shard" and "milli" (the most free shards / thousandths, in
steps, on one GPU): a stream without CPU-bound, memory-bound or fractional jobs pays nothing for those.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gputui.core.scheduler.units import NodeState

ANY = "g:*"
MPS = "mps"
CPU = "cpu"
MPS_ROOM = "mpsroom"
SHARD = "shard"
MILLI = "milli"
#: The "milli" index counts free thousandths in steps of this many (rounded up), so that a query scans 40
#: buckets, not 1,000; the placer then checks the exact figure.
MILLI_STEP = 25
MEM = "mem"
#: The "mem" index counts free host memory in steps of this many MiB (rounded up).
MEM_STEP = 8192
#: The "cpu" index counts free CPUs whole (CPUs are kept in thousandths), rounded up.
CPU_STEP = 1000
#: The indexes with many counts (CPUs, memory steps), which keep every node with a count in bucket 0.
_HOST_KEYS = frozenset((CPU, MEM))


def in_steps(amount: int, step: int) -> int:
    """``amount`` in an index's unit of ``step``, rounded up, so that a node where something fits is never left out
    (the placer then checks the exact figure)."""
    return -(-amount // step)


class IndexQueries:
    """The queries of :class:`ClusterState` over its indexes (a base class, so that the hot paths keep plain method
    calls)."""

    buckets: dict[str, list[int]]
    all_mask: int
    share_keys: set[str]
    unknown_cpus: int
    unknown_mem: int
    by_name: dict[str, NodeState]

    def top(self, key: str) -> int:
        """The largest count any node has for ``key`` (0 when none)."""
        b = self.buckets.get(key)
        if not b:
            return 0
        for c in range(len(b) - 1, 0, -1):
            if b[c]:
                return c
        return 0

    def nodes_with(self, key: str, at_least: int, allowed: int, ascending: bool = True) -> Iterator[int]:
        """Bitmasks of nodes with at least ``at_least`` of ``key``, one per count, in policy order (lazily: the
        first node that fits usually ends the search)."""
        b = self.buckets.get(key)
        if not b:
            return
        rng = range(max(1, at_least), len(b)) if ascending else range(len(b) - 1, max(1, at_least) - 1, -1)
        if allowed is self.all_mask:  # every node: no AND of two cluster-wide masks per bucket
            for c in rng:
                if m := b[c]:
                    yield m
            return
        for c in rng:
            if m := b[c] & allowed:
                yield m

    def at_least_mask(self, key: str, count: int) -> int:
        """Nodes whose count for ``key`` is at least ``count``."""
        b = self.buckets.get(key)
        if not b:
            return 0
        low, top = max(1, count), len(b)
        m = 0
        if key in _HOST_KEYS and low - 1 < top - low:  # fewer below: every node with a count, less those below
            for c in range(1, low):
                m |= b[c]
            return b[0] & ~m
        for c in range(low, top):
            m |= b[c]
        return m

    def host_mask(self, cpu_milli: int, mem: int) -> int:
        """Nodes that may have ``cpu_milli`` thousandths of CPUs and ``mem`` MiB free (a superset: the CPU and
        memory indexes count in steps), for a cheap cut before the per-node loop of a job that needs much."""
        m = self.all_mask
        if cpu_milli > 1000 and CPU in self.share_keys:
            m &= self.at_least_mask(CPU, in_steps(cpu_milli, CPU_STEP)) | self.unknown_cpus
        if mem > 0 and MEM in self.share_keys:
            m &= self.at_least_mask(MEM, in_steps(mem, MEM_STEP)) | self.unknown_mem
        return m

    def mask_of(self, names: tuple[str, ...] | list[str]) -> int:
        m = 0
        for n in names:
            node = self.by_name.get(n)
            if node is not None:
                m |= node.bit
        return m
