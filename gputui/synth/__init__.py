"""Synthetic clusters: deterministic, seeded GPU / MIG / MPS timelines for the demo, tests and benchmarks.

MIG layouts come only from the real profile tables (``gputui.core.mig_profiles``), so a synthetic
layout is one a driver would accept.
"""

from gputui.synth.cluster import synth_cluster, synth_cluster_steps
from gputui.synth.mig_layout import MigLayoutError, build_gpu_instances, place
from gputui.synth.mig_validate import validate_gpu_layout

__all__ = [
    "MigLayoutError",
    "build_gpu_instances",
    "place",
    "synth_cluster",
    "synth_cluster_steps",
    "validate_gpu_layout",
]
