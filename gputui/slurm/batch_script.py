"""The command of a job that ``sbatch --wrap`` made: Slurm keeps it only in the batch script it wrote.

squeue and scontrol say ``Command=(null)`` for such jobs; ``scontrol write batch_script ID -`` prints the
script, which is a fixed header and the command (seen on Slurm 22.05):

    #!/bin/sh
    # This script was created by sbatch --wrap.

    sleep 300 && echo 'hi there'
"""

from __future__ import annotations

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
