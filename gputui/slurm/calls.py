"""The argv of every Slurm call that changes something (sbatch, scancel, scontrol requeue / update), and the
checks made before one is run."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.request import JobRequest
from gputui.slurm.errors import SlurmError

#: Options gputui's parser accepts that sbatch must not get: they would block the call or mean nothing to Slurm.
_REFUSED = {"--wait": "sbatch would not return until the job ends", "-W": "sbatch would not return until the job ends"}


def option_words(words: Sequence[str], command_len: int, separate_command: bool) -> list[str]:
    """The option part of what the user typed: ``words`` less a trailing command (``command_len`` words, when the
    command came inside ``words``) and a trailing ``--``."""
    opts = list(words) if separate_command else list(words[: len(words) - command_len])
    if opts and opts[-1] == "--":
        opts.pop()
    return opts


def check_for_slurm(words: Sequence[str], request: JobRequest) -> None:
    """Refuse, in one line, what the embedded scheduler accepts but sbatch cannot do."""
    for w in words:
        head = w.split("=", 1)[0]
        if head in _REFUSED:
            raise RequestError(f"{head}: not available here ({_REFUSED[head]})")
    if request.kind == "device":
        raise RequestError(
            "--gpu-ids: Slurm cannot be asked for particular GPU indices; request a count (--gres=gpu:N)"
        )


def sbatch_argv(
    options: Sequence[str],
    *,
    command: Sequence[str] = (),
    script_path: str | None = None,
    script_args: Sequence[str] = (),
    cwd: str | None = None,
    name: str | None = None,
) -> list[str]:
    """``sbatch --parsable [--chdir=CWD] [--job-name=NAME] OPTIONS (SCRIPT ARGS | --wrap=CMD)``.

    A command goes through ``--wrap``, Slurm's documented way to submit one: sbatch writes it into a ``/bin/sh``
    batch script, so it is joined with :func:`shlex.join`, which quotes every word; the job runs exactly that
    argv and nothing in it is expanded. ``--chdir`` and ``--job-name`` come before the user's options, so the
    user's own win.
    """
    argv = ["sbatch", "--parsable"]
    if cwd:
        argv.append(f"--chdir={cwd}")
    if name:
        argv.append(f"--job-name={name}")
    argv.extend(options)
    if script_path is not None:
        argv.extend([script_path, *script_args])
    else:
        if not command:
            raise ValueError("a command or a script is needed")
        argv.append("--wrap=" + shlex.join(command))
    return argv


def default_name(command: Sequence[str]) -> str | None:
    """A job name from the command's program, as sbatch names a script job after its file."""
    return os.path.basename(command[0]) or None if command else None


def parse_job_id(stdout: str) -> int:
    """``sbatch --parsable`` prints ``42`` or ``42;cluster``."""
    m = re.fullmatch(r"\s*(\d+)(?:;\S+)?\s*", stdout)
    if not m:
        shown = stdout.strip().splitlines()[0][:80] if stdout.strip() else "nothing"
        raise SlurmError(f"sbatch answered {shown!r}; expected a job id")
    return int(m.group(1))


def scancel_argv(job_id: int) -> list[str]:
    # --verbose: without it scancel of a job Slurm refuses (already ended, unknown) exits 0 and says nothing
    return ["scancel", "--verbose", str(job_id)]


def requeue_argv(job_id: int) -> list[str]:
    return ["scontrol", "requeue", str(job_id)]


def nice_argv(job_id: int, nice: int) -> list[str]:
    return ["scontrol", "update", f"JobId={job_id}", f"Nice={nice}"]
