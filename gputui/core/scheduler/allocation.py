"""What a job was given, exactly: nodes, GPU indices and UUIDs, MIG instances, MPS shares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MigGrant:
    """One MIG GPU instance given to a job; ``created`` when dynamic mode makes it for this job."""

    gi_id: int
    profile: str
    placement_start: int | None
    placement_size: int | None
    cis: tuple[tuple[int | None, str | None], ...] = ()  # (compute instance id, MIG device UUID)
    created: bool = False


@dataclass(frozen=True, slots=True)
class GpuGrant:
    """One GPU (or a MIG instance on it, or an MPS share of it) on one node."""

    index: int
    uuid: str | None = None
    mig: MigGrant | None = None
    mps_percent: int | None = None
    mps_memory_mib: int = 0  # declared, for the MPS memory sum
    shards: int | None = None  # Slurm GPU shards of this GPU
    milli: int | None = None  # thousandths of this GPU

    @property
    def whole(self) -> bool:
        return self.mig is None and self.mps_percent is None and self.shards is None and self.milli is None


@dataclass(frozen=True, slots=True)
class NodeGrant:
    """Everything a job holds on one node."""

    node: str
    gpus: tuple[GpuGrant, ...]
    exclusive: bool = False
    mps_pipe_directory: str | None = None
    cpu_milli: int = 0  # host CPUs taken on this node, in thousandths
    mem_mib: int = 0  # host memory taken on this node


@dataclass(frozen=True, slots=True)
class Allocation:
    """A job's whole allocation; a gang: it is applied to all nodes at once or not at all."""

    nodes: tuple[NodeGrant, ...]

    @property
    def node_names(self) -> tuple[str, ...]:
        return tuple(n.node for n in self.nodes)

    @property
    def gpu_count(self) -> int:
        return sum(len(n.gpus) for n in self.nodes)

    def units(self) -> set[tuple[str, int, object]]:
        """What this allocation occupies, for overlap tests: (node, GPU index, what) with what one of
        "whole", "mps", ("gi", id) for an existing instance, "new" for an instance it creates, "node" for exclusive."""
        out: set[tuple[str, int, object]] = set()
        for n in self.nodes:
            if n.exclusive:
                out.add((n.node, -1, "node"))
            for g in n.gpus:
                if g.mig is not None:
                    out.add((n.node, g.index, "new" if g.mig.created else ("gi", g.mig.gi_id)))
                elif g.mps_percent is not None:
                    out.add((n.node, g.index, "mps"))
                elif g.shards is not None or g.milli is not None:
                    out.add((n.node, g.index, "share"))
                else:
                    out.add((n.node, g.index, "whole"))
        return out

    def conflicts_with(self, other: Allocation) -> bool:
        """Whether the two could not both hold at once (conservative for MPS shares and new MIG instances)."""
        theirs_on = {n.node for n in other.nodes}
        for n in self.nodes:  # every conflict is on a node both use: the usual backfill test ends here
            if n.node in theirs_on:
                break
        else:
            return False
        mine = self.units()
        theirs = other.units()
        my_nodes = {u[0] for u in mine if u[2] == "node"}
        their_nodes = {u[0] for u in theirs if u[2] == "node"}
        if my_nodes & {u[0] for u in theirs} or their_nodes & {u[0] for u in mine}:
            return True
        by_gpu: dict[tuple[str, int], set[object]] = {}
        for node, idx, what in mine:
            by_gpu.setdefault((node, idx), set()).add(what)
        for node, idx, what in theirs:
            held = by_gpu.get((node, idx))
            if not held:
                continue
            if what == "whole" or "whole" in held or what in ("mps", "share") or held & {"mps", "share"}:
                return True
            if what == "new" and ("new" in held):
                return True
            if what in held:
                return True
        return False
