"""The scheduler's mutable view of the cluster (:mod:`.cluster`), the free-capacity indexes it keeps current on every
change and the queries over them (:mod:`.indexes`), and checks of both for tests and audits (:mod:`.checks`)."""

from gputui.core.scheduler.state.cluster import ClusterState
from gputui.core.scheduler.state.indexes import (
    ANY,
    CPU,
    CPU_STEP,
    MEM,
    MEM_STEP,
    MILLI,
    MILLI_STEP,
    MPS,
    MPS_ROOM,
    SHARD,
    in_steps,
)
from gputui.core.scheduler.units import GpuUnit, MigSlot, NodeState

__all__ = [
    "ANY", "CPU", "CPU_STEP", "MEM", "MEM_STEP", "MILLI", "MILLI_STEP", "MPS", "MPS_ROOM", "SHARD", "ClusterState",
    "GpuUnit", "MigSlot", "NodeState", "in_steps",
]  # fmt: skip
