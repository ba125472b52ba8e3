"""The units the scheduler's state is made of: a MIG GPU instance, a GPU, a node; mutable, and changed only
through :class:`~gputui.core.scheduler.state.ClusterState` and the ledger, which keep the indexes exact."""

from __future__ import annotations

from gputui.core.mig_profiles import GpuModel, MigProfile
from gputui.core.scheduler.allocation import GpuGrant


class MigSlot:
    """One GPU instance: its profile, memory-slot mask, compute instances, and who holds it."""

    __slots__ = ("gi_id", "name", "profile", "start", "size", "mask", "compute", "cis", "holder", "busy", "created")

    def __init__(self, gi_id: int | None, name: str | None, profile: MigProfile | None, start: int | None,
                 size: int | None, cis: tuple[tuple[int | None, str | None], ...] = (), busy: bool = False,
                 created: bool = False) -> None:  # fmt: skip
        self.gi_id = gi_id
        self.name = name
        self.profile = profile
        self.start = start
        self.size = size
        self.mask = ((1 << size) - 1) << start if start is not None and size is not None else 0
        self.compute = profile.compute_slices if profile else 0
        self.cis = cis
        self.holder: int | None = None
        self.busy = busy
        self.created = created


class GpuUnit:
    """One GPU: whole, MIG-partitioned, or shared through MPS."""

    __slots__ = (
        "node", "index", "uuid", "name", "model", "memory_mib", "tags", "mig", "instances", "dyn_ok",
        "holder", "busy", "lost", "mps_on", "mps_pipe", "mps_jobs", "mps_pct", "mps_mem", "mps_clients",
        "foreign_clients", "contrib", "pristine", "shards", "shards_used", "milli_used",
        "best", "grant",
    )  # fmt: skip

    def __init__(self, node: NodeState, index: int, uuid: str | None, name: str | None, model: GpuModel | None,
                 memory_mib: int | None, tags: tuple[str, ...]) -> None:  # fmt: skip
        self.node = node
        self.index = index
        self.uuid = uuid
        self.name = name
        self.model = model
        self.memory_mib = memory_mib
        self.tags = tags
        self.mig = False
        self.instances: list[MigSlot] = []
        self.dyn_ok = False  # every instance's placement is known, so new ones can be created safely
        self.holder: int | None = None
        self.busy = False  # foreign load on the GPU as a whole
        self.lost = False
        self.mps_on = False
        self.mps_pipe: str | None = None
        self.mps_jobs: dict[int, tuple[int, int]] = {}  # job -> (percent, declared MiB)
        self.mps_pct = 0
        self.mps_mem = 0
        self.mps_clients = 0
        self.foreign_clients = 0
        self.contrib: dict[str, int] = {}
        self.pristine = True
        self.shards = 0  # shards this GPU is cut into (Slurm's gres.conf Name=shard); 0: none
        self.shards_used = 0  # the grants say which job has how many: a GPU keeps only the sums
        self.milli_used = 0  # thousandths given to fractional-share jobs
        self.best: tuple[int, int, int] = (0, 0, 0)  # what it adds to the node's best-of keys: MPS room, shards, milli
        self.grant: GpuGrant | None = None  # its whole-GPU grant, made when first placed (see place.whole)

    @property
    def used_mask(self) -> int:
        m = 0
        for s in self.instances:
            m |= s.mask
        return m

    @property
    def compute_used(self) -> int:
        return sum(s.compute for s in self.instances)

    def profile_count(self, name: str) -> int:
        return sum(1 for s in self.instances if s.name == name)


class NodeState:
    """One node: its GPUs, its counts per index key, and whether a job holds it exclusively."""

    __slots__ = ("name", "idx", "bit", "gpus", "by_index", "counts", "exclusive", "unpristine", "releases", "cpus",
                 "cpu_milli", "cpu_free", "mem", "mem_free", "features", "jobs")  # fmt: skip

    def __init__(self, name: str, idx: int, cpus: int | None = None, mem: int | None = None,
                 features: frozenset[str] = frozenset()) -> None:  # fmt: skip
        self.name = name
        self.idx = idx
        self.bit = 1 << idx
        self.gpus: list[GpuUnit] = []
        self.by_index: dict[int, GpuUnit] = {}
        self.counts: dict[str, int] = {}
        self.exclusive: int | None = None
        self.unpristine = 0
        self.releases = 0  # bumped when something here is freed: a job that did not fit here may fit now
        self.cpus = cpus  # whole CPUs; None: not known, so not a constraint
        self.cpu_milli = (cpus or 0) * 1000  # the same in thousandths, the unit of every CPU need
        self.cpu_free = self.cpu_milli  # thousandths
        self.mem = mem  # host memory, MiB; None: not known, so not a constraint
        self.mem_free = mem or 0
        self.features = features  # lower case: the manager's node features and every GPU type name here
        self.jobs = 0  # jobs holding anything here (CPU-only jobs included)

    def host_fits(self, cpu_milli: int, mem: int) -> bool:
        """Whether ``cpu_milli`` thousandths of CPUs and ``mem`` MiB (-1: all of it) are free here; unknown totals
        never bind."""
        if self.cpus is not None and cpu_milli > self.cpu_free:
            return False
        if self.mem is None:
            return True
        return self.mem_free == self.mem if mem < 0 else mem <= self.mem_free
