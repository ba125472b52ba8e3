"""Which queue a source has, and a quick look at it in the state database without opening the job service.

The dashboard looks before its first frame: a queue in which no job waits or runs cannot change that frame,
so the job service (the scheduler, the runners, the lease) opens after it and the first frame comes sooner.
Nothing here imports the scheduler or the Slurm adapter.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gputui.core.scheduler.job_states import PENDING, RUNNING
from gputui.jobs.schema import SCHEMA_VERSION
from gputui.sources.base import Source
from gputui.sources.replay import ReplaySource


def is_simulated(source: Source) -> bool:
    return isinstance(source, ReplaySource)


def is_slurm(source: Source) -> bool:
    """True for a Slurm cluster (looked up without importing the Slurm adapter: a source from it has loaded it)."""
    module = sys.modules.get("gputui.slurm.source")
    return module is not None and isinstance(source, module.SlurmSource)


def cluster_key(source_arg: str | None, source: Source) -> str:
    """``local:HOST`` for a live machine, ``replay:demo`` or ``replay:/abs/path`` for a replay."""
    if not is_simulated(source):
        from gputui.jobs.runners.procstat import host_name

        return f"local:{host_name()}"
    if source_arg is None or source_arg.lower() == "demo":
        return "replay:demo"
    return "replay:" + os.path.realpath(source_arg)


def idle_queue(db_path: Path, cluster: str, timeout_s: float = 0.2) -> int | None:
    """The id of the newest event in the store when no job of ``cluster`` waits or runs (0: no store yet); None
    when some job does, or when the store cannot answer at once (locked, damaged, another schema version):
    opening the job service then says why."""
    if not db_path.exists():
        return 0
    import sqlite3  # loaded only when there is a store to look at

    try:
        con = sqlite3.connect(db_path.resolve().as_uri() + "?mode=ro", uri=True, timeout=timeout_s)
    except (sqlite3.Error, ValueError):
        return None
    try:
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return None
        sql = "SELECT COUNT(*) FROM jobs WHERE cluster = ? AND state IN (?, ?)"
        if con.execute(sql, (cluster, PENDING, RUNNING)).fetchone()[0]:
            return None
        return int(con.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])
    except sqlite3.Error:
        return None
    finally:
        con.close()


SSH_NO_JOBS = (
    "the SSH source has no job queue (jobs would run on this machine, not on the hosts); "
    "run jobs through Slurm, with --telemetry ssh for the values"
)


def is_ssh(source: Source) -> bool:
    """True for the SSH fleet source (looked up without importing it: a source from it has loaded it)."""
    module = sys.modules.get("gputui.sources.ssh.fleet")
    return module is not None and isinstance(source, module.SshSource)
