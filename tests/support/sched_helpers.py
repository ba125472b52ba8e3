"""Small builders shared by the scheduler tests."""

from __future__ import annotations

from gputui.core.scheduler import ledger
from gputui.core.scheduler.build import GpuSpec, nodes_from_pattern, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.finder import find_allocation
from gputui.core.scheduler.options import parse_options
from gputui.core.scheduler.placement import prepare
from gputui.core.scheduler.policies import get_policy
from gputui.core.scheduler.state import ClusterState


def cluster(*groups: tuple[str, int, GpuSpec], **config: object) -> ClusterState:
    """``cluster(("node[01-02]", 4, GpuSpec()))``: host list, GPUs per node, GPU spec."""
    specs = []
    for hosts, n, spec in groups:
        specs += nodes_from_pattern(hosts, [spec] * n)
    return state_from_specs(specs, SchedulerConfig(**config))  # type: ignore[arg-type]


def place(state: ClusterState, options: str, job: int | None = None, policy: str = "best-fit"):
    """Find an allocation for ``options``; apply it as ``job`` when given and found."""
    alloc = find_allocation(state, prepare(state, parse_options(options)), get_policy(policy))
    if alloc is not None and job is not None:
        ledger.apply(state, alloc, job)
        state.audit()
    return alloc


def layout(alloc) -> list[tuple[str, tuple[int, ...]]]:
    return [(n.node, tuple(g.index for g in n.gpus)) for n in alloc.nodes]
