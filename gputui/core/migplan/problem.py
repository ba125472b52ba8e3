"""What the advisor plans from: each MIG GPU with its instances and the work on them, and the work that waits."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.mig_profiles import GpuModel
from gputui.core.migplan.layouts import Slot


@dataclass(frozen=True, slots=True)
class Work:
    """Something running on a GPU instance: a job of the queue, or processes gputui did not start."""

    key: str  # "job 12", "pids 4211,4212 (alice)"
    label: str  # what to print: "job 12 train (alice)"
    job_id: int | None = None


@dataclass(frozen=True, slots=True)
class Instance:
    """A GPU instance that exists now."""

    gi_id: int | None
    slot: Slot
    ci_ids: tuple[int, ...] = (0,)
    holders: tuple[Work, ...] = ()

    @property
    def busy(self) -> bool:
        return bool(self.holders)


@dataclass(frozen=True, slots=True)
class PlanGpu:
    """One MIG GPU: where it is, its model, and its instances now. ``fixed``: its layout may not change (a
    placement or GI id is not known, so no command could be written safely)."""

    node: str
    index: int
    model: GpuModel
    instances: tuple[Instance, ...] = ()
    fixed: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return (self.node, self.index)


@dataclass(frozen=True, slots=True)
class Demand:
    """Waiting work: a MIG job (``needs`` all on one node), or one instance asked for with ``--want``."""

    key: str  # "job 14", "want 3"
    label: str
    needs: tuple[tuple[str, int], ...]  # (profile, count)
    rank: int = 0  # queue order: lower starts first among equals
    nodes: frozenset[str] | None = None  # where it may go; None: anywhere
    job_id: int | None = None

    def compute(self, model: GpuModel) -> int:
        total = 0
        for name, n in self.needs:
            p = model.profile(name)
            total += n * (p.compute_slices if p else 0)
        return total


@dataclass(frozen=True, slots=True)
class Problem:
    gpus: tuple[PlanGpu, ...]
    demands: tuple[Demand, ...]
    drain_weight: float = 1.0  # a drained compute slice costs this many started ones; inf: never drain


def profile_compute(name: str) -> int:
    """'3g.40gb' -> 3 (the compute slices are the number before 'g.' in every MIG profile name)."""
    head = name.split("g.", 1)[0]
    return int(head) if head.isdigit() else 0
