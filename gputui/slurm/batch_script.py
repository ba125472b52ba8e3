"""The command of a job that ``sbatch --wrap`` made: Slurm keeps it only in the batch script it wrote.

squeue and scontrol say ``Command=(null)`` for such jobs; ``scontrol write batch_script ID -`` prints the
script, which is a fixed header and the command (seen on Slurm 22.05):

    #!/bin/sh
    # This script was created by sbatch --wrap.

    sleep 300 && echo 'hi there'
"""

from __future__ import annotations

import threading

from gputui.slurm.commands import SlurmClient
from gputui.slurm.errors import SlurmError

WRAP_MARK = "# This script was created by sbatch --wrap."


def batch_script_argv(job_id: int) -> list[str]:
    return ["scontrol", "write", "batch_script", str(job_id), "-"]


def wrapped_command(script: str) -> str | None:
    """The command line of an ``sbatch --wrap`` script, as typed (a shell line); None for any other script."""
    lines = script.splitlines()
    if len(lines) < 2 or not lines[0].startswith("#!") or lines[1].strip() != WRAP_MARK:
        return None
    command = "\n".join(lines[2:]).strip()
    return command or None


class WrappedCommands:
    """Each job's ``--wrap`` command, asked of Slurm once per job (None: none, or Slurm does not give the script)."""

    def __init__(self, client: SlurmClient) -> None:
        self.client = client
        self._known: dict[int, str | None] = {}
        self._lock = threading.Lock()

    def command(self, job_id: int) -> str | None:
        with self._lock:
            if job_id in self._known:
                return self._known[job_id]
        try:
            known = wrapped_command(self.client.output(batch_script_argv(job_id)))
        except SlurmError:
            known = None
        with self._lock:
            self._known[job_id] = known
        return known
