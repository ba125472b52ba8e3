"""The error a Slurm client command gives: one line, Slurm's own words where it had any."""

from __future__ import annotations

from gputui.core.errors import GputuiError


class SlurmError(GputuiError):
    """A Slurm command failed, was not found, timed out, or answered something that cannot be read."""
