"""A parsed, normalised job request: what a job asks for, independent of the syntax it came in."""

from __future__ import annotations

from dataclasses import dataclass

#: Request kinds: free whole GPUs by count, explicit device indices, MIG instances, MPS shares, whole nodes
#: (``--exclusive`` without a GPU count), CPUs and memory only, Slurm GPU shards, thousandths of one GPU.
KINDS = ("count", "device", "mig", "mps", "nodes", "cpu", "shard", "milli")

#: Dependency types understood in ``--dependency``.
DEPENDENCY_TYPES = ("after", "afterany", "afterok", "afternotok")


@dataclass(frozen=True, slots=True)
class JobRequest:
    """One job's resource request; fields not used by ``kind`` stay at their defaults.

    Per-node fields (``gpus_per_node``, ``mig``, ``gpu_ids``) apply on each of ``nodes`` nodes. ``gpus`` is a total
    that may span nodes. ``nodes`` None means "as few as needed" for totals and 1 otherwise.
    """

    kind: str
    gpus: int | None = None
    gpus_per_node: int | None = None
    gpu_type: str | None = None  # "a100"; for MIG a model prefix such as "a100" from "a100_3g.20gb"
    nodes: int | None = None
    exclusive: bool = False
    gpu_ids: tuple[int, ...] = ()
    mig: tuple[tuple[str, int], ...] = ()  # (normalised profile, count per node)
    mps_percent: int | None = None
    nodelist: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    time_limit_s: int | None = None  # None: not given (a default applies); timespec.UNLIMITED: no limit
    shards: int | None = None  # kind "shard": shards of one GPU (Slurm's --gres=shard:N)
    gpu_milli: int | None = None  # kind "milli": thousandths of one GPU (1..999)
    constraint: tuple[tuple[str, ...], ...] = ()  # --constraint: alternatives (|) of features all required (&)
    # host resources, with Slurm's meaning; None: not given
    ntasks: int | None = None
    ntasks_per_node: int | None = None
    cpus_per_task: int | None = None
    cpus_per_gpu: int | None = None
    cpu_milli: int | None = None  # gputui's --cpu-milli: thousandths of CPUs per node (a trace's millicores)
    mem_mib: int | None = None  # --mem: per node; 0 means all of the node's memory
    mem_per_cpu_mib: int | None = None
    mem_per_gpu_mib: int | None = None  # host memory per allocated GPU (Slurm's --mem-per-gpu)
    gpu_mem_mib: int | None = None  # gputui's --gpu-mem: GPU memory each GPU must have; an MPS share's declared memory
    name: str | None = None
    priority: int = 0
    nice: int = 0
    dependencies: tuple[tuple[str, int], ...] = ()  # ("afterok", 12)
    environment: tuple[tuple[str, str], ...] = ()  # from --export and `export` lines of a batch script
    ignored: tuple[str, ...] = ()  # accepted options that do not affect GPU placement
    held: bool = False  # --hold: submitted held (Slurm's JobHeldUser) until released
    begin: str | None = None  # --begin, as given ("now+1hour", "2026-12-01T16:00"); see parse.timespec.begin_time
    command: tuple[str, ...] = ()

    @property
    def node_count(self) -> int | None:
        """Nodes the job needs, or None when a total may spread over as few nodes as needed."""
        if self.nodes is not None:
            return self.nodes
        if self.kind == "count" and self.gpus is not None and self.gpus_per_node is None:
            return None
        return 1

    @property
    def effective_priority(self) -> int:
        return self.priority - self.nice

    @property
    def shape(self) -> tuple:
        """What placement depends on; two pending jobs of one shape fit or fail together."""
        return (
            self.kind, self.gpus, self.gpus_per_node, self.gpu_type, self.nodes, self.exclusive, self.gpu_ids,
            self.mig, self.mps_percent, self.nodelist, self.exclude, self.gpu_mem_mib, self.shards, self.gpu_milli,
            self.constraint, self.ntasks, self.ntasks_per_node, self.cpus_per_task, self.cpus_per_gpu, self.mem_mib,
            self.mem_per_cpu_mib, self.mem_per_gpu_mib, self.cpu_milli,
        )  # fmt: skip

    @property
    def host_default(self) -> bool:
        """Whether no CPU or memory option was given (one CPU, the default memory)."""
        return (
            self.cpus_per_task is None and self.ntasks is None and self.ntasks_per_node is None
            and self.cpus_per_gpu is None and self.cpu_milli is None and self.mem_mib is None
            and self.mem_per_cpu_mib is None
            and self.mem_per_gpu_mib is None
        )  # fmt: skip

    @property
    def uses_gpus(self) -> bool:
        return self.kind not in ("cpu", "nodes")

    def host_text(self) -> str:
        """The CPU and memory part of the request in words ('4 CPUs, 8 GiB'), '' when nothing was asked."""
        parts = []
        c = self.cpus_per_task or 1
        if self.cpu_milli:
            parts.append(cpu_text(self.cpu_milli))
        elif self.cpus_per_gpu:
            parts.append(f"{self.cpus_per_gpu} CPUs per GPU")
        elif self.ntasks_per_node:
            parts.append(f"{self.ntasks_per_node * c} CPUs per node")
        elif self.ntasks or self.cpus_per_task:
            parts.append(f"{(self.ntasks or 1) * c} CPUs")
        if self.mem_mib is not None:
            parts.append("all memory of the node" if self.mem_mib == 0 else f"{mib_text(self.mem_mib)} per node")
        elif self.mem_per_cpu_mib:
            parts.append(f"{mib_text(self.mem_per_cpu_mib)} per CPU")
        elif self.mem_per_gpu_mib:
            parts.append(f"{mib_text(self.mem_per_gpu_mib)} per GPU")
        return ", ".join(parts)

    def describe(self) -> str:
        """A short plain-words summary: '8 GPUs', '2 x 3g.20gb on 1 node', '50 % MPS on 2 GPUs', '4 CPUs'."""
        gpus = self._describe_gpus()
        host = self.host_text()
        if self.kind == "cpu":
            n = self.nodes or 1
            return (host or "1 CPU") + (f" on each of {n} nodes" if n > 1 else "")
        return f"{gpus}; {host}" if host else gpus

    def _describe_gpus(self) -> str:
        t = f"{self.gpu_type} " if self.gpu_type else ""
        if self.kind == "shard":
            return f"{self.shards} shard(s) of one {t}GPU"
        if self.kind == "milli":
            return f"{(self.gpu_milli or 0) / 1000:.3f} of one {t}GPU"
        if self.kind == "device":
            ids = ",".join(str(i) for i in self.gpu_ids)
            return f"GPU {ids} of {self.nodelist[0]}"
        if self.kind == "mig":
            parts = ", ".join(f"{n} x {t}{p}" for p, n in self.mig)
            return f"{parts} per node on {self.nodes or 1} node(s)" if (self.nodes or 1) > 1 else parts
        if self.kind == "mps":
            k, n = self.gpus_per_node or 1, self.nodes or 1
            where = f"{k} GPU(s) per node on {n} nodes" if n > 1 else f"{k} GPU(s) of one node"
            return f"{self.mps_percent} % MPS share on {where}"
        if self.kind == "nodes":
            return f"{self.nodes or 1} whole node(s)"
        excl = " (whole nodes)" if self.exclusive else ""
        if self.gpus_per_node is not None:
            n = self.nodes or 1
            return f"{self.gpus_per_node} {t}GPU(s) per node on {n} node(s){excl}"
        where = f" on {self.nodes} node(s)" if self.nodes else ""
        return f"{self.gpus} {t}GPU(s){where}{excl}"


def mib_text(mib: int) -> str:
    """'8 GiB', '1.5 GiB', '500 MiB'."""
    if mib >= 1024:
        g = mib / 1024
        return f"{g:.0f} GiB" if g == int(g) else f"{g:.1f} GiB"
    return f"{mib} MiB"


def cpu_number(milli: int) -> str:
    """'4', '0.5' from thousandths of CPUs."""
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli / 1000:g}"


def cpu_text(milli: int, adjective: str = "") -> str:
    """'4 CPUs', '1 free CPU', '0.5 CPUs' from thousandths of CPUs."""
    return f"{cpu_number(milli)} {adjective}CPU{'' if milli == 1000 else 's'}"
