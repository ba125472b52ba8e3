"""Running Slurm client commands (sinfo, squeue, scontrol, sbatch, scancel) by argv, never through a shell.

The runner is injectable so that tests answer from captured outputs; the real one is :func:`run_process`.
A failure becomes a :class:`SlurmError` carrying one line: Slurm's own message as it printed it.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gputui.slurm.errors import SlurmError

#: Seconds a query (sinfo, squeue, scontrol show) may take; a controller that does not answer ends in this.
QUERY_TIMEOUT_S = 20.0
#: Seconds sbatch, scancel and scontrol updates may take.
ACTION_TIMEOUT_S = 30.0
# Slurm prints an error as "cmd: error: text" or "func error: text"; lines that say so make the call fail.
_ERROR_LINE = re.compile(r"(^|\s|:)(error|fatal):?\s", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Completed:
    """What a command printed and how it exited."""

    returncode: int
    stdout: str
    stderr: str


#: (argv, environment, timeout in seconds) -> what the command did; raises SlurmError when it could not run.
Runner = Callable[[Sequence[str], Mapping[str, str], float], Completed]


def run_process(argv: Sequence[str], env: Mapping[str, str], timeout: float) -> Completed:
    """Run ``argv`` as a child process (no shell, no standard input) and collect its output."""
    name = argv[0]
    try:
        done = subprocess.run(
            list(argv), env=dict(env), capture_output=True, text=True, errors="replace", timeout=timeout,
            stdin=subprocess.DEVNULL, shell=False, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        raise SlurmError(f"{name}: command not found; is the Slurm client installed and on PATH?") from None
    except PermissionError:
        raise SlurmError(f"{name}: permission denied") from None
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{name} did not answer within {timeout:g} s; is slurmctld reachable?") from None
    except OSError as e:
        raise SlurmError(f"{name}: cannot run: {e.strerror or e}") from None
    return Completed(done.returncode, done.stdout, done.stderr)


def error_line(done: Completed) -> str | None:
    """Slurm's complaint in one line, or None when the call succeeded.

    A non-zero exit is a failure; so is an exit 0 whose stderr has an error line (``scancel -v`` of an unknown
    job exits 0 but prints ``scancel: error: Kill job error on job id 9: Invalid job id specified``).
    """
    lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    flagged = [ln for ln in lines if _ERROR_LINE.search(ln)]
    if done.returncode == 0 and not flagged:
        return None
    if flagged:
        return flagged[0] if len(flagged) == 1 else "; ".join(dict.fromkeys(flagged[:3]))
    if lines:
        return lines[0]  # a usage complaint comes first, its "Try --help" after
    out = [ln.strip() for ln in done.stdout.splitlines() if ln.strip()]
    return out[0] if out else f"exited with status {done.returncode} and printed nothing"


class SlurmClient:
    """Runs Slurm commands with one environment (``SLURM_CONF`` and ``PATH`` passed through) and one runner."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        runner: Runner | None = None,
        timeout_s: float = QUERY_TIMEOUT_S,
        action_timeout_s: float = ACTION_TIMEOUT_S,
    ) -> None:
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self.runner: Runner = runner or run_process
        self.timeout_s = timeout_s
        self.action_timeout_s = action_timeout_s

    @property
    def conf_path(self) -> str | None:
        return self.env.get("SLURM_CONF")

    def run(self, argv: Sequence[str], *, action: bool = False) -> Completed:
        """Run ``argv`` and return what it did, whatever its exit status; raises SlurmError only when it could
        not run (not installed, timed out)."""
        if not argv or not argv[0]:
            raise ValueError("empty argv")
        timeout = self.action_timeout_s if action else self.timeout_s
        return self.runner(tuple(argv), self.env, timeout)

    def call(self, argv: Sequence[str], *, action: bool = False) -> Completed:
        """Run ``argv``; raises SlurmError with Slurm's message when it fails (see :func:`error_line`)."""
        done = self.run(argv, action=action)
        problem = error_line(done)
        if problem is not None:
            raise SlurmError(problem)
        return done

    def output(self, argv: Sequence[str]) -> str:
        """The standard output of a query that must succeed."""
        return self.call(argv).stdout
