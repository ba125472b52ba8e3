"""The embedded scheduler core: Slurm-style requests placed on whole GPUs, devices, MIG instances and MPS shares.

Pure Python over the snapshot model; time comes in as an argument, never from a clock read here.
"""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
from gputui.core.scheduler.build import GpuSpec, NodeSpec, nodes_from_pattern, state_from_snapshot, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.decision import Decision
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.explain import Explanation, explain
from gputui.core.scheduler.mig import CapacityReport, capacity, resolve_model
from gputui.core.scheduler.options import parse_options
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.request import JobRequest
from gputui.core.scheduler.script import parse_script
from gputui.core.scheduler.state import ClusterState

__all__ = [
    "Allocation", "CapacityReport", "ClusterState", "Decision", "Explanation", "GpuGrant", "GpuSpec", "JobRequest",
    "MigGrant", "NodeGrant", "NodeSpec", "RequestError", "Scheduler", "SchedulerConfig", "capacity", "explain",
    "nodes_from_pattern", "parse_options", "parse_script", "resolve_model", "state_from_snapshot", "state_from_specs",
]  # fmt: skip
