"""A stand-in for the Slurm client commands: answers argv from given texts (captured outputs) and records every
call, so tests drive the Slurm source and job back end without a cluster."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gputui.slurm.commands import Completed
from gputui.slurm.errors import SlurmError

Answer = Completed | str | Callable[[tuple[str, ...]], Completed]


@dataclass
class Call:
    argv: tuple[str, ...]
    env: Mapping[str, str]
    timeout: float


@dataclass
class FakeSlurm:
    """A runner (see :data:`gputui.slurm.commands.Runner`): ``answers`` maps an argv to its answer (a text is a
    successful stdout); ``missing`` names programs that are "not installed"; ``hang`` ones that time out."""

    answers: dict[tuple[str, ...], Answer] = field(default_factory=dict)
    missing: set[str] = field(default_factory=set)
    hang: set[str] = field(default_factory=set)
    calls: list[Call] = field(default_factory=list)

    def __call__(self, argv: Sequence[str], env: Mapping[str, str], timeout: float) -> Completed:
        key = tuple(argv)
        self.calls.append(Call(key, dict(env), timeout))
        if key[0] in self.missing:
            raise SlurmError(f"{key[0]}: command not found; is the Slurm client installed and on PATH?")
        if key[0] in self.hang:
            raise SlurmError(f"{key[0]} did not answer within {timeout:g} s; is slurmctld reachable?")
        answer = self.answers.get(key)
        if answer is None:
            return Completed(1, "", f"{key[0]}: error: no answer prepared for {' '.join(key)}\n")
        if isinstance(answer, str):
            return Completed(0, answer, "")
        if isinstance(answer, Completed):
            return answer
        return answer(key)

    def argvs(self, program: str | None = None) -> list[tuple[str, ...]]:
        """The argv of every call (of ``program`` only, if given), in order."""
        return [c.argv for c in self.calls if program is None or c.argv[0] == program]


#: The argv the source runs -> the file of fixtures/slurm/ captured from it (prefixed with the release).
CAPTURED = {
    ("sinfo", "--version"): "sinfo-version.txt",
    ("sinfo", "--json"): "sinfo.json",
    ("squeue", "--json"): "squeue.json",
    ("scontrol", "-d", "show", "node"): "scontrol-d-show-node.txt",
    ("scontrol", "show", "job", "-d"): "scontrol-show-job-d.txt",
}


def captured_answers(folder: Path, release: str = "22.05") -> dict[tuple[str, ...], Answer]:
    """Answers for the source's commands from a folder of captured outputs (``fixtures/slurm``)."""
    return {argv: (folder / f"{release}-{name}").read_text() for argv, name in CAPTURED.items()}
