"""The Slurm source: nodes, GPUs and job holdings of a Slurm cluster, polled through its client commands.

Each poll runs two commands (sinfo + squeue as JSON, or two scontrol calls as text) and keeps the jobs it read
for the job back end (:class:`~gputui.slurm.backend.SlurmJobs`), so squeue is not asked twice per poll. Where
one Slurm node is this machine and NVML answers, that node's GPUs show NVML's live values.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gputui.core.errors import GputuiError, NvmlUnavailable, SourceError
from gputui.core.model import ClusterSnapshot
from gputui.slurm.cluster_name import cluster_name
from gputui.slurm.commands import Runner, SlurmClient
from gputui.slurm.errors import SlurmError
from gputui.slurm.formats.job_info import SlurmJob
from gputui.slurm.formats.nodes import SlurmNode
from gputui.slurm.merge import local_node, merge
from gputui.slurm.reader import SlurmReader
from gputui.slurm.snapshot import build_snapshot, gpu_layout, unattributed
from gputui.slurm.telemetry import merge_telemetry
from gputui.sources.base import Source

log = logging.getLogger("gputui.slurm")

NvmlOpener = Callable[[str], Source]
TelemetryOpener = Callable[[list[str]], Source]  # a live source over these node names (SSH)


@dataclass(frozen=True, slots=True)
class SlurmPoll:
    """One poll: the snapshot it gave and what Slurm said, for the job back end and the what-if."""

    snapshot: ClusterSnapshot
    nodes: tuple[SlurmNode, ...]
    jobs: tuple[SlurmJob, ...]
    gpu_types: Mapping[tuple[str, int], str | None] = field(default_factory=dict)  # (node, index) -> GRES type
    hidden_busy: frozenset[tuple[str, int]] = frozenset()  # in use by jobs this user cannot see


def open_local_nvml(node_name: str) -> Source:
    """NVML on this machine, named as its Slurm node."""
    from gputui.sources.nvml import NvmlSource

    return NvmlSource(node_name=node_name)


class SlurmSource:
    """A :class:`~gputui.sources.base.Source` over a Slurm cluster; ``env`` is the client commands' environment
    (default: this process's), ``conf_path`` sets its SLURM_CONF. Raises SourceError when no Slurm client works."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        conf_path: str | os.PathLike[str] | None = None,
        runner: Runner | None = None,
        mode: str = "auto",
        nvml: NvmlOpener | None = open_local_nvml,
        hostname: str | None = None,
        clock: Callable[[], float] = time.time,
        timeout_s: float | None = None,
        telemetry: TelemetryOpener | None = None,
    ) -> None:
        environment = dict(os.environ if env is None else env)
        if conf_path is not None:
            if not Path(conf_path).is_file():
                raise SourceError(f"{conf_path}: no such slurm.conf")
            environment["SLURM_CONF"] = os.fspath(conf_path)
        timeouts = {} if timeout_s is None else {"timeout_s": timeout_s}
        self.client = SlurmClient(environment, runner, **timeouts)
        self.reader = SlurmReader(self.client, mode)
        try:
            self.version = self.reader.version
        except SlurmError as e:
            raise SourceError(f"Slurm: {e}") from None
        self.cluster_name = cluster_name(self.client) or "unknown"
        self.clock = clock
        self.hostname = hostname or socket.gethostname()
        self._nvml_opener = nvml
        self._nvml: Source | None = None
        self._nvml_node: str | None = None
        self._nvml_tried = False
        self._lock = threading.Lock()
        self.last: SlurmPoll | None = None  # the latest poll, read by the job back end
        self.description = f"Slurm {self.version} cluster {self.cluster_name}"
        self._telemetry_opener = telemetry
        self._telemetry: Source | None = None
        self._telemetry_hosts: list[str] = []
        self.telemetry_notes: tuple[str, ...] = ()
        if telemetry is not None:
            self.description += ", GPU values over SSH"

    # -- polling -----------------------------------------------------------------------------------------------
    def poll(self) -> ClusterSnapshot:
        """Read the cluster; a failure (slurmctld down, a command missing, output cut short) is one SourceError line."""
        with self._lock:
            t = self.clock()
            try:
                read = self.reader.read()
            except SlurmError as e:
                raise SourceError(str(e)) from None
            snap = build_snapshot(read.nodes, read.jobs, t, self.description)
            snap = self._with_telemetry(snap) if self._telemetry_opener else self._with_nvml(snap, read.nodes)
            types = {(n.name, i): gtype for n in read.nodes for i, gtype in gpu_layout(n)}
            self.last = SlurmPoll(snap, read.nodes, read.jobs, types, unattributed(read.nodes, read.jobs))
            return snap

    def _with_nvml(self, snap: ClusterSnapshot, nodes: tuple[SlurmNode, ...]) -> ClusterSnapshot:
        if not self._nvml_tried:
            self._nvml_tried = True
            node = local_node(nodes, self.hostname)
            if node is not None and self._nvml_opener is not None:
                try:
                    self._nvml = self._nvml_opener(node.name)
                    self._nvml_node = node.name
                    self.description += f", live NVML values on {node.name}"
                    snap = ClusterSnapshot(snap.timestamp, snap.nodes, self.description)
                except NvmlUnavailable as e:
                    log.info("Slurm node %s is this machine, but %s", node.name, e)
        if self._nvml is None or self._nvml_node is None:
            return snap
        try:
            live = self._nvml.poll()
        except GputuiError as e:
            log.warning("NVML poll failed (%s); showing Slurm's view of %s", e, self._nvml_node)
            return snap
        return merge(snap, self._nvml_node, live)

    def _with_telemetry(self, snap: ClusterSnapshot) -> ClusterSnapshot:
        """Each node's GPUs as the telemetry source reads them (one reader per node), merged with Slurm's view."""
        assert self._telemetry_opener is not None
        hosts = [n.name for n in snap.nodes]
        if self._telemetry is not None and hosts != self._telemetry_hosts:
            self._telemetry.close()  # nodes came or went: read the new set
            self._telemetry = None
        if self._telemetry is None:
            self._telemetry = self._telemetry_opener(hosts)
            self._telemetry_hosts = hosts
        merged = merge_telemetry(snap, self._telemetry.poll())
        if merged.notes != self.telemetry_notes:
            for note in merged.notes:
                log.warning("Slurm and the GPUs it reads disagree: %s", note)
            self.telemetry_notes = merged.notes
        return merged.snapshot

    def settle(self) -> None:
        """For one-shot commands: the telemetry's first answers from every node (see SshSource.settle)."""
        if self._telemetry_opener is None:
            return
        self.poll()
        settle = getattr(self._telemetry, "settle", None)
        if settle is not None:
            settle()

    def close(self) -> None:
        if self._telemetry is not None:
            self._telemetry.close()
            self._telemetry = None
        if self._nvml is not None:
            self._nvml.close()
            self._nvml = None
