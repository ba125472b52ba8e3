"""A parsed, normalised job request: what a job asks for, independent of the syntax it came in."""

from __future__ import annotations

from dataclasses import dataclass

#: Request kinds: free whole GPUs by count, explicit device indices, MIG instances, MPS shares,
#: or whole nodes (``--exclusive`` without a GPU count).
KINDS = ("count", "device", "mig", "mps", "nodes")

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
    mem_per_gpu_mib: int | None = None
    name: str | None = None
    priority: int = 0
    nice: int = 0
    dependencies: tuple[tuple[str, int], ...] = ()  # ("afterok", 12)
    environment: tuple[tuple[str, str], ...] = ()  # from --export and `export` lines of a batch script
    ignored: tuple[str, ...] = ()  # accepted options that do not affect GPU placement
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
            self.mig, self.mps_percent, self.nodelist, self.exclude, self.mem_per_gpu_mib,
        )  # fmt: skip

    def describe(self) -> str:
        """A short plain-words summary: '8 GPUs', '2 x 3g.20gb on 1 node', '50 % MPS on 2 GPUs'."""
        t = f"{self.gpu_type} " if self.gpu_type else ""
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
