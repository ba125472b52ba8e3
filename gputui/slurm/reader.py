"""Reading a cluster's nodes and jobs in one go: ``sinfo --json`` + ``squeue --json`` where the installed Slurm
has them, else ``scontrol -d show node`` + ``scontrol show job -d`` text; the choice is made once, on the version
``sinfo --version`` reports, and a build without JSON support falls back to text for good."""

from __future__ import annotations

from dataclasses import dataclass

from gputui.slurm.commands import Completed, SlurmClient, error_line
from gputui.slurm.errors import SlurmError
from gputui.slurm.formats import json_values as jv
from gputui.slurm.formats.job_info import SlurmJob, jobs_from_json, jobs_from_text
from gputui.slurm.formats.nodes import SlurmNode, nodes_from_json, nodes_from_text
from gputui.slurm.formats.version import SlurmVersion, means_no_json, parse_version
from gputui.slurm.jobs.cache import JobCache

NODES_JSON = ("sinfo", "--json")
JOBS_JSON = ("squeue", "--json")
NODES_TEXT = ("scontrol", "-d", "show", "node")
JOBS_TEXT = ("scontrol", "show", "job", "-d")
VERSION = ("sinfo", "--version")
PING = ("scontrol", "ping")
MODES = ("auto", "json", "text")


class _NoJson(SlurmError):
    """This Slurm build has no ``--json`` (no such option, or its serializer plugin is missing)."""


@dataclass(frozen=True, slots=True)
class ClusterRead:
    """One reading of the cluster."""

    nodes: tuple[SlurmNode, ...]
    jobs: tuple[SlurmJob, ...]
    via: str  # "json" or "text"


class SlurmReader:
    """Reads nodes and jobs through ``client``; ``mode`` "auto" picks JSON or text by the version."""

    def __init__(self, client: SlurmClient, mode: str = "auto") -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}")
        self.client = client
        self.mode = mode
        self._auto = mode == "auto"
        self._version: SlurmVersion | None = None
        self.cache = JobCache(client)  # only the jobs that changed are read again (see jobs/cache.py)

    @property
    def version(self) -> SlurmVersion:
        """The installed client's version (asked once; ``sinfo --version`` needs no controller)."""
        if self._version is None:
            self._version = parse_version(self.client.output(VERSION))
        return self._version

    @property
    def via(self) -> str:
        if self.mode == "auto":
            self.mode = "json" if self.version.has_json else "text"
        return self.mode

    def read(self) -> ClusterRead:
        if self.via == "json":
            try:
                data = self._json(NODES_JSON, ("nodes", "sinfo"))
            except _NoJson:
                self.mode = "text"
                return self.read()
            nodes = nodes_from_json(data)
            jobs = self.cache.read(lambda: tuple(jobs_from_json(self._json(JOBS_JSON, ("jobs",)))))
            return ClusterRead(tuple(nodes), jobs, "json")
        nodes_text = self.client.output(NODES_TEXT)
        jobs = self.cache.read(lambda: tuple(jobs_from_text(self.client.output(JOBS_TEXT), " ".join(JOBS_TEXT))))
        return ClusterRead(tuple(nodes_from_text(nodes_text, " ".join(NODES_TEXT))), jobs, "text")

    def _json(self, argv: tuple[str, ...], keys: tuple[str, ...]) -> dict:
        name = " ".join(argv)
        done = self.client.run(argv)
        if done.stdout.lstrip().startswith("{"):
            data = jv.parse(done.stdout, name)
            err = jv.reported_error(data)
            if err is not None:
                raise SlurmError(self._diagnose(f"{name}: {err}"))
            if done.returncode != 0:
                said = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
                raise SlurmError(f"{name}: {said[0] if said else f'exited with status {done.returncode}'}")
            jv.require(data, name, keys)
            return data
        problem = error_line(done)
        if problem is not None and self._auto and means_no_json(problem):
            raise _NoJson(problem)
        if problem is None:
            raise SlurmError(f"{name}: its output is empty" if not done.stdout.strip() else f"{name}: not JSON")
        raise SlurmError(problem if problem.startswith(argv[0]) else f"{name}: {problem}")

    def _diagnose(self, message: str) -> str:
        """Slurm's JSON says only "Unspecified error" when the controller is down: ask ``scontrol ping``."""
        try:
            ping: Completed = self.client.run(PING)
        except SlurmError:
            return message
        down = [ln.strip() for ln in ping.stdout.splitlines() if "DOWN" in ln]
        return f"{message}; {down[0]}" if down else message
