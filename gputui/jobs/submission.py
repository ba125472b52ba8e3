"""What a user submits, parsed: Slurm options plus a command (srun style) or a batch script (sbatch style).

A batch script is read, never run here: its ``#SBATCH`` header gives options, and its ``#!`` line names the
interpreter it will be run with, by argv.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gputui.core.scheduler.parse.options import parse_options, parse_tokens, tokenize
from gputui.core.scheduler.parse.script import parse_script
from gputui.core.scheduler.request import JobRequest
from gputui.jobs.errors import JobError

MAX_SCRIPT_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Submission:
    request: JobRequest
    options: str  # the option words as one line, for display
    command: tuple[str, ...]  # argv; with a batch script, the script's arguments
    script: str | None = None
    script_path: str | None = None


def words_of(options: str | Sequence[str]) -> list[str]:
    return tokenize(options) if isinstance(options, str) else list(options)


def read_script(path: str | os.PathLike[str]) -> str:
    """A batch script's text; it must start with ``#!`` as sbatch demands."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_SCRIPT_BYTES + 1)
    except OSError as e:
        raise JobError(f"{p}: cannot read the batch script: {e.strerror or e}") from None
    if len(raw) > MAX_SCRIPT_BYTES:
        raise JobError(f"{p}: batch script is larger than {MAX_SCRIPT_BYTES // 1024} KiB")
    text = raw.decode(errors="replace")
    interpreter(text, str(p))
    return text


def interpreter(text: str, name: str = "batch script") -> list[str]:
    """The ``#!`` line as argv: the interpreter and at most one argument, as the kernel reads it."""
    first = text.split("\n", 1)[0].rstrip("\r")
    if not first.startswith("#!") or not first[2:].strip():
        raise JobError(f"{name}: not a batch script: the first line must be #! and the path of an interpreter")
    parts = first[2:].strip().split(None, 1)
    return parts


def is_batch_script(path: str) -> bool:
    """Whether ``path`` names a readable file that starts with ``#!``."""
    try:
        with open(path, "rb") as f:
            return f.read(2) == b"#!"
    except OSError:
        return False


def build(
    options: str | Sequence[str] = "",
    command: Sequence[str] = (),
    script: str | os.PathLike[str] | None = None,
    *,
    slurm: bool = False,
) -> Submission:
    """Parse a submission; raises RequestError (bad options) or JobError (no command, unreadable script).
    ``slurm``: for Slurm, which is handed the options untouched (see ``parse_options``)."""
    words = words_of(options)
    if script is not None:
        text = read_script(script)
        request = parse_script(text, words, slurm=slurm)
        if request.command:
            raise JobError(f"unexpected words after the options: {shlex.join(request.command)}")
        return Submission(request, shlex.join(words), tuple(command), text, os.path.abspath(script))
    request = parse_options(words + (["--", *command] if command else []), slurm=slurm)
    if not request.command:
        raise JobError("no command: give one after --, or a batch script")
    shown = words[: len(words) - len(request.command)] if not command else words
    if shown and shown[-1] == "--":
        shown = shown[:-1]
    return Submission(request, shlex.join(shown), request.command)


def split_sbatch(words: Sequence[str]) -> tuple[list[str], str | None, list[str]]:
    """sbatch's form ``OPTIONS SCRIPT [ARGS]``: (options, script, args) when the first word after the options is
    a batch script (and no ``--`` came first); otherwise (words, None, [])."""
    words = list(words)
    if "--" in words:
        return words, None, []
    raw = parse_tokens(words)
    if raw.command and is_batch_script(raw.command[0]):
        cut = len(words) - len(raw.command)
        return words[:cut], raw.command[0], raw.command[1:]
    return words, None, []
