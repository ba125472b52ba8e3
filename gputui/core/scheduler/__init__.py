"""The embedded scheduler core: Slurm-style requests placed on whole GPUs, devices, MIG instances and MPS shares.

Pure Python over the snapshot model; time comes in as an argument, never from a clock read here. The names
below load their module on first use, so that importing one leaf (``scheduler.errors``, ``scheduler.jobs``)
does not load the whole scheduler: the dashboard draws its first frame before it needs any of it. (The
function ``explain`` is imported from ``scheduler.explain``: a lazy name may not share a submodule's name.)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
    from gputui.core.scheduler.build import GpuSpec, NodeSpec, nodes_from_pattern, state_from_snapshot, state_from_specs
    from gputui.core.scheduler.config import SchedulerConfig
    from gputui.core.scheduler.decision import Decision
    from gputui.core.scheduler.errors import RequestError
    from gputui.core.scheduler.explain import Explanation
    from gputui.core.scheduler.mig import CapacityReport, capacity, resolve_model
    from gputui.core.scheduler.parse.options import parse_options
    from gputui.core.scheduler.parse.script import parse_script
    from gputui.core.scheduler.queue import Scheduler
    from gputui.core.scheduler.request import JobRequest
    from gputui.core.scheduler.state import ClusterState

#: public name -> the module of this package that defines it
_HOME = {
    "Allocation": "allocation", "GpuGrant": "allocation", "MigGrant": "allocation", "NodeGrant": "allocation",
    "GpuSpec": "build", "NodeSpec": "build", "nodes_from_pattern": "build", "state_from_snapshot": "build",
    "state_from_specs": "build", "SchedulerConfig": "config", "Decision": "decision", "RequestError": "errors",
    "Explanation": "explain", "CapacityReport": "mig", "capacity": "mig",
    "resolve_model": "mig", "parse_options": "parse.options", "Scheduler": "queue", "JobRequest": "request",
    "parse_script": "parse.script", "ClusterState": "state",
}  # fmt: skip

__all__ = [
    "Allocation", "CapacityReport", "ClusterState", "Decision", "Explanation", "GpuGrant", "GpuSpec", "JobRequest",
    "MigGrant", "NodeGrant", "NodeSpec", "RequestError", "Scheduler", "SchedulerConfig", "capacity",
    "nodes_from_pattern", "parse_options", "parse_script", "resolve_model", "state_from_snapshot", "state_from_specs",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups skip this function
    return value
