"""The scheduler's mutable view of the cluster, with indexes of free capacity kept current on every change.

Per index key ("g:<type>" whole GPUs, "m:<profile>" MIG instances, "mps" MPS-ready GPUs) each node has a count,
and ``buckets[key][c]`` is a bitmask of the nodes whose count is exactly ``c``: finding "a node with at least n
free" is a few integer ANDs, whatever the cluster size. Some keys hold a per-node figure that is not a sum of GPUs:
"mpsroom" (the most percentage left under 100 on one MPS-ready GPU) and, once a request of their kind is seen,
"cpu" and "mem" (free CPUs and host memory, in steps), "shard" and "milli" (the most free shards / thousandths, in
steps, on one GPU): a stream without CPU-bound, memory-bound or fractional jobs pays nothing for those.
"""

from __future__ import annotations

from collections.abc import Iterator

from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.mig import placeable
from gputui.core.scheduler.units import GpuUnit, MigSlot, NodeState

__all__ = ["ANY", "CPU", "MEM", "MILLI", "MPS", "SHARD", "ClusterState", "GpuUnit", "MigSlot", "NodeState"]

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


class ClusterState:
    """Nodes, GPUs and the free-capacity indexes; allocation and release live in :mod:`ledger`."""

    def __init__(self, config: SchedulerConfig | None = None) -> None:
        self.config = config or SchedulerConfig()
        self.nodes: list[NodeState] = []
        self.by_name: dict[str, NodeState] = {}
        self.buckets: dict[str, list[int]] = {}
        self.totals: dict[str, int] = {}
        self.idle_mask = 0
        self.all_mask = 0
        self.releases = 0  # bumped on every release, so cached "does not fit" answers can expire
        self.known_tags: set[str] = set()
        self.indexed_tags: set[str] = {"*"}  # type names some request has used; only these are indexed
        self.known_profiles: set[str] = set()
        self.mps_gpus = 0
        self.share_keys: set[str] = set()  # CPU / SHARD / MILLI once a request of that kind came: only then indexed
        self.gpu_shares = False  # SHARD or MILLI is indexed
        self.feature_masks: dict[str, int] = {}  # feature -> nodes having it
        self.unknown_cpus = 0  # nodes whose CPUs are not known (no CPU constraint there)
        self.unknown_mem = 0  # nodes whose memory is not known

    # -- building -------------------------------------------------------------------------------
    def add_node(self, name: str, cpus: int | None = None, mem: int | None = None,
                 features: tuple[str, ...] = ()) -> NodeState:  # fmt: skip
        if name in self.by_name:
            raise ValueError(f"node {name} twice")
        node = NodeState(name, len(self.nodes), cpus, mem, frozenset(f.lower() for f in features))
        self.nodes.append(node)
        self.by_name[name] = node
        self.all_mask |= node.bit
        for f in node.features:
            self.feature_masks[f] = self.feature_masks.get(f, 0) | node.bit
        if cpus is None:
            self.unknown_cpus |= node.bit
        elif CPU in self.share_keys:
            self._add(node, CPU, cpus)  # the CPU index counts whole CPUs free, rounded up
        if mem is None:
            self.unknown_mem |= node.bit
        elif MEM in self.share_keys and mem > 0:
            self._add(node, MEM, in_steps(mem, MEM_STEP))
        self._refresh_idle(node)
        return node

    def take_host(self, node: NodeState, cpu_milli: int, mem: int, sign: int) -> None:
        """Allocate (``sign`` 1) or free (-1) host CPUs and memory on ``node``, keeping the CPU index exact."""
        if cpu_milli and node.cpus is not None:
            old = node.cpu_free
            node.cpu_free = new = old - sign * cpu_milli
            if CPU in self.share_keys and (d := (-(-new // CPU_STEP)) - (-(-old // CPU_STEP))):  # in_steps
                self._add(node, CPU, d)
        if mem and node.mem is not None:
            old = node.mem_free
            node.mem_free = new = old - sign * mem
            if MEM in self.share_keys and (d := (-(-new // MEM_STEP)) - (-(-old // MEM_STEP))):
                self._add(node, MEM, d)
        node.jobs += sign
        if node.jobs == (sign > 0):  # idleness can only change on the first job in or the last one out
            self._refresh_idle(node)

    def add_gpu(self, node: NodeState, gpu: GpuUnit) -> None:
        node.gpus.append(gpu)
        node.by_index[gpu.index] = gpu
        for t in gpu.tags:
            if t != "*":
                node.features |= {t}
                self.feature_masks[t] = self.feature_masks.get(t, 0) | node.bit
        if not gpu.lost:
            self.known_tags.update(gpu.tags)
            if gpu.mps_on and not gpu.mig:
                self.mps_gpus += 1
            if gpu.mig:
                self.known_profiles.update(s.name for s in gpu.instances if s.name)
                if self.config.mig_dynamic and gpu.dyn_ok and gpu.model:
                    self.known_profiles.update(p.name for p in gpu.model.profiles)
        gpu.contrib = {}
        gpu.pristine = True
        self.touch(gpu)
        self._refresh_idle(node)

    # -- the indexes ----------------------------------------------------------------------------
    def contribution(self, g: GpuUnit) -> dict[str, int]:
        """What one GPU adds to its node's counts, from its current state."""
        if g.lost or g.busy or g.node.exclusive is not None:
            return {}
        cfg = self.config
        if not g.mig:
            if g.holder is not None:
                return {}
            out: dict[str, int] = {}
            if not ((g.mps_jobs and not cfg.mps_beside_whole) or g.foreign_clients or g.shards_used or g.milli_used):
                indexed = self.indexed_tags
                for t in g.tags:
                    if t in indexed:
                        out["g:" + t] = 1
            if g.mps_on and g.mps_clients < cfg.mps_max_clients and not (g.shards_used or g.milli_used):
                out[MPS] = 1
            return out
        out = {}
        for s in g.instances:
            if s.holder is None and not s.busy and s.name:
                k = "m:" + s.name
                out[k] = out.get(k, 0) + 1
        if cfg.mig_dynamic and g.dyn_ok and g.model is not None:
            used, compute = g.used_mask, g.compute_used
            for p in g.model.profiles:
                n = placeable(g.model, p, used, compute, g.profile_count(p.name))
                if n:
                    k = "m:" + p.name
                    out[k] = out.get(k, 0) + n
        return out

    @staticmethod
    def mps_room(g: GpuUnit) -> int:
        """The percentage a new MPS share may take on ``g`` before its sum passes 100 (0 if it takes none)."""
        return max(0, 100 - g.mps_pct) if MPS in g.contrib else 0

    def best_of(self, g: GpuUnit) -> tuple[int, int, int]:
        """What ``g`` offers to the node's best-of keys now: (MPS room under 100 %, free shards, free thousandths)."""
        room = max(0, 100 - g.mps_pct) if MPS in g.contrib else 0  # mps_room, inlined
        if g.lost or g.busy or g.mig or g.holder is not None or g.node.exclusive is not None:
            return (room, 0, 0)
        if g.mps_jobs or g.foreign_clients:
            return (room, 0, 0)
        shards = g.shards - g.shards_used if (g.shards and not g.milli_used and SHARD in self.share_keys) else 0
        milli = -(-(1000 - g.milli_used) // MILLI_STEP) if (not g.shards_used and MILLI in self.share_keys) else 0
        return (room, shards, milli)

    def _move_best(self, g: GpuUnit, b: tuple[int, int, int]) -> None:
        """Set ``g.best`` to ``b`` and its node's best-of counts to the new maxima; the node's GPUs are looked at
        (once, for all three) only where ``g`` held a maximum that went down."""
        was, g.best = g.best, b
        node = g.node
        counts = node.counts
        again = False
        for slot, key in ((0, MPS_ROOM), (1, SHARD), (2, MILLI)):
            new, old = b[slot], was[slot]
            if new == old:
                continue
            cur = counts.get(key, 0)
            if new > cur:
                self._add(node, key, new - cur)
            elif old == cur:  # it went down from the node's maximum
                again = True
        if again:
            room = shards = milli = 0
            for x in node.gpus:
                r, sh, mi = x.best
                if r > room:
                    room = r
                if sh > shards:
                    shards = sh
                if mi > milli:
                    milli = mi
            for key, top in ((MPS_ROOM, room), (SHARD, shards), (MILLI, milli)):
                cur = counts.get(key, 0)
                if top != cur:
                    self._add(node, key, top - cur)

    def index_share(self, key: str) -> None:
        """Start indexing free CPUs, shards or thousandths (done once, when a request of that kind first comes)."""
        if key in self.share_keys:
            return
        self.share_keys.add(key)
        self.gpu_shares = self.gpu_shares or key in (SHARD, MILLI)
        for node in self.nodes:
            if key == CPU:
                if node.cpus is not None and node.cpu_free > 0:
                    self._add(node, CPU, in_steps(node.cpu_free, CPU_STEP))
                continue
            if key == MEM:
                if node.mem is not None and node.mem_free > 0:
                    self._add(node, MEM, in_steps(node.mem_free, MEM_STEP))
                continue
            for g in node.gpus:
                self.touch(g)

    @staticmethod
    def is_pristine(g: GpuUnit) -> bool:
        if g.lost or g.busy or g.holder is not None or g.mps_jobs or g.foreign_clients or g.shards_used or g.milli_used:
            return False
        for s in g.instances:  # noqa: SIM110 (a loop, not all() over a generator: this runs on every change)
            if s.holder is not None or s.busy or s.created:
                return False
        return True

    def _add(self, node: NodeState, key: str, delta: int) -> None:
        old = node.counts.get(key, 0)
        new = old + delta
        b = self.buckets.get(key)
        if b is None:
            b = self.buckets[key] = [0]
        bit = node.bit
        if old:
            b[old] ^= bit
        elif key in _HOST_KEYS:
            b[0] |= bit  # bucket 0 of the CPU and memory indexes holds every node with a count (at_least_mask)
        if new:
            while len(b) <= new:
                b.append(0)
            b[new] |= bit
            node.counts[key] = new
        else:
            if key in _HOST_KEYS:
                b[0] ^= bit
            node.counts.pop(key, None)
        self.totals[key] = self.totals.get(key, 0) + delta

    def touch(self, g: GpuUnit) -> None:
        """Bring the indexes up to date after ``g`` changed."""
        new = self.contribution(g)
        old = g.contrib
        if new != old:
            node = g.node
            for k, v in old.items():
                d = new.get(k, 0) - v
                if d:
                    self._add(node, k, d)
            for k, v in new.items():
                if k not in old:
                    self._add(node, k, v)
            g.contrib = new
        self._touch_rest(g)

    def touch_all(self, node: NodeState, gpus: list[GpuUnit]) -> None:
        """:meth:`touch` for several GPUs of ``node`` that changed together, each index count moved once."""
        if len(gpus) == 1:
            self.touch(gpus[0])
            return
        deltas: dict[str, int] = {}
        for g in gpus:
            new = self.contribution(g)
            old = g.contrib
            if new != old:
                for k, v in old.items():
                    deltas[k] = deltas.get(k, 0) + new.get(k, 0) - v
                for k, v in new.items():
                    if k not in old:
                        deltas[k] = deltas.get(k, 0) + v
                g.contrib = new
        for k, d in deltas.items():
            if d:
                self._add(node, k, d)
        for g in gpus:
            self._touch_rest(g)

    def _touch_rest(self, g: GpuUnit) -> None:
        """The best-of keys and idleness after ``g`` changed (its contribution is already current)."""
        if self.gpu_shares:
            b = self.best_of(g)
            if b != g.best:
                self._move_best(g, b)
        elif g.mps_on:  # the usual case: only the MPS room can change
            room = self.mps_room(g)
            if room != g.best[0]:
                self._move_best(g, (room, 0, 0))
        p = self.is_pristine(g)
        if p != g.pristine:
            g.pristine = p
            g.node.unpristine += -1 if p else 1
            self._refresh_idle(g.node)

    def _refresh_idle(self, node: NodeState) -> None:
        idle = (
            node.unpristine == 0 and node.exclusive is None and node.jobs == 0
            and (bool(node.gpus) or node.cpus is not None)
        )  # fmt: skip
        if idle:
            self.idle_mask |= node.bit
        elif self.idle_mask & node.bit:
            self.idle_mask ^= node.bit

    def index_tag(self, tag: str) -> None:
        """Start indexing free whole GPUs of type ``tag`` (done once, when a request first names it)."""
        if tag in self.indexed_tags or tag not in self.known_tags:
            return
        self.indexed_tags.add(tag)
        for node in self.nodes:
            for g in node.gpus:
                if tag in g.tags:
                    self.touch(g)

    # -- queries --------------------------------------------------------------------------------
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

    # -- checks for tests and audits (in :mod:`state_checks`) ------------------------------------
    def fingerprint(self) -> tuple:
        """Everything that decides future placements, as plain data: equal fingerprints place alike."""
        from gputui.core.scheduler.state_checks import fingerprint

        return fingerprint(self)

    def audit(self) -> None:
        """Recompute every index from scratch and raise AssertionError where the kept ones differ."""
        from gputui.core.scheduler.state_checks import audit

        audit(self)
