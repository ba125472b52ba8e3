"""The Slurm adapter: a source that reads a Slurm cluster and a job back end that drives it, behind the same
interfaces as NVML and the embedded scheduler, so the dashboard does not know which it has."""

from __future__ import annotations

from gputui.slurm.backend import SlurmJobs
from gputui.slurm.errors import SlurmError
from gputui.slurm.source import SlurmPoll, SlurmSource

__all__ = ["SlurmError", "SlurmJobs", "SlurmPoll", "SlurmSource"]
