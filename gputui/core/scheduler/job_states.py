"""The states of a job, as Slurm names them (a module of their own: the dashboard reads them before it loads
the scheduler)."""

from __future__ import annotations

PENDING, RUNNING, COMPLETED, FAILED, CANCELLED = "PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"
ENDED = (COMPLETED, FAILED, CANCELLED)
