"""The scheduler's mutable view of the cluster: nodes, GPUs, and the upkeep of the free-capacity indexes of
:mod:`.indexes` on every change."""

from __future__ import annotations

from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.mig import placeable
from gputui.core.scheduler.state.indexes import (
    _HOST_KEYS,
    CPU,
    CPU_STEP,
    MEM,
    MEM_STEP,
    MILLI,
    MILLI_STEP,
    MPS,
    MPS_ROOM,
    SHARD,
    IndexQueries,
    in_steps,
)
from gputui.core.scheduler.units import GpuUnit, NodeState


class ClusterState(IndexQueries):
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
        # contribution's answer for a held or gone whole GPU, without the call
        if g.lost or g.busy or (g.holder is not None and not g.mig) or g.node.exclusive is not None:
            new: dict[str, int] = {}
        else:
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
        """:meth:`touch` for several GPUs of ``node`` that changed together, each index count moved once, the
        node's idleness looked at once (the per-GPU steps inlined: this runs on every start and end)."""
        if len(gpus) == 1:
            self.touch(gpus[0])
            return
        deltas: dict[str, int] = {}
        contribution = self.contribution
        held = node.exclusive is not None
        for g in gpus:
            # contribution's answer for a held or gone whole GPU, without the call
            new = {} if held or g.lost or g.busy or (g.holder is not None and not g.mig) else contribution(g)
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
        if self.gpu_shares:
            for g in gpus:
                self._touch_rest(g)
            return
        idle = False
        for g in gpus:  # _touch_rest without shares: the MPS room, then pristine (is_pristine inlined)
            if g.mps_on:
                room = (100 - g.mps_pct if g.mps_pct < 100 else 0) if MPS in g.contrib else 0
                if room != g.best[0]:
                    self._move_best(g, (room, 0, 0))
            if (
                g.lost or g.busy or g.holder is not None or g.mps_jobs or g.foreign_clients or g.shards_used
                or g.milli_used
            ):  # fmt: skip
                p = False
            else:
                p = True
                for s in g.instances:
                    if s.holder is not None or s.busy or s.created:
                        p = False
                        break
            if p != g.pristine:
                g.pristine = p
                node.unpristine += -1 if p else 1
                idle = True
        if idle:
            self._refresh_idle(node)

    def _touch_rest(self, g: GpuUnit) -> None:
        """The best-of keys and idleness after ``g`` changed (its contribution is already current)."""
        if self.gpu_shares:
            b = self.best_of(g)
            if b != g.best:
                self._move_best(g, b)
        elif g.mps_on:  # the usual case: only the MPS room can change
            room = (100 - g.mps_pct if g.mps_pct < 100 else 0) if MPS in g.contrib else 0  # mps_room, inlined
            if room != g.best[0]:
                self._move_best(g, (room, 0, 0))
        if g.lost or g.busy or g.holder is not None or g.mps_jobs or g.foreign_clients or g.shards_used or g.milli_used:
            p = False  # is_pristine, inlined
        else:
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

    # -- checks for tests and audits (in :mod:`.checks`) ------------------------------------
    def fingerprint(self) -> tuple:
        """Everything that decides future placements, as plain data: equal fingerprints place alike."""
        from gputui.core.scheduler.state.checks import fingerprint

        return fingerprint(self)

    def audit(self) -> None:
        """Recompute every index from scratch and raise AssertionError where the kept ones differ."""
        from gputui.core.scheduler.state.checks import audit

        audit(self)
