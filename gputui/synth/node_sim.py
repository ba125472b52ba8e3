"""One simulated node: its GPUs, the jobs on them, an optional MPS control daemon, and the events they cause."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gputui.core.model import Event, MpsClient, MpsDaemon, NodeResources, NodeSnapshot, ProcessInfo
from gputui.synth.gpu_sim import GpuSim
from gputui.synth.host_specs import memory_used
from gputui.synth.identity import PidAllocator
from gputui.synth.jobs import Job, Rank
from gputui.synth.load import Load

MPS_PIPE_DIRECTORY = "/tmp/nvidia-mps"
MPS_LOG_DIRECTORY = "/var/log/nvidia-mps"
MPS_SERVER_COMMAND = "nvidia-cuda-mps-server"


@dataclass(slots=True)
class MpsState:
    """The node's MPS control daemon; its server is spawned when the first client connects."""

    gpus: tuple[int, ...]
    user: str  # MPS serves one user at a time, so the server runs as its clients' user
    running: bool = False
    control_pid: int | None = None
    server_pid: int | None = None


def _duration(seconds: int) -> str:
    m, s = divmod(max(0, seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


class NodeSim:
    """Advances a node one second at a time and reports what nvidia-smi and a scheduler would show."""

    def __init__(
        self,
        name: str,
        gpus: Sequence[GpuSim],
        rng: random.Random,
        t0: float,
        driver_version: str = "550.90.07",
        cuda_version: str = "12.4",
        mps: MpsState | None = None,
        host: NodeResources | None = None,
    ) -> None:
        self.name = name
        self.host = host  # CPUs and memory; memory in use follows the running jobs
        self.gpus = list(gpus)
        self.rng = rng
        self.t0 = t0
        self.driver_version = driver_version
        self.cuda_version = cuda_version
        self.mps = mps
        self.pids = PidAllocator(rng)
        self.pending: list[Job] = []
        self.running: list[Job] = []
        self._mps_actions: list[tuple[int, str, str]] = []  # (second, "start" | "stop", reason)

    # -- what is about to happen --------------------------------------------------------------
    def add_job(self, job: Job) -> None:
        """Queue a job; one whose start is at or before 0 is running from the first frame on."""
        for t in job.targets:
            gpu = self.gpus[t.gpu]
            if t.gi_id is not None and not gpu.ci_exists(t.gi_id, t.ci_id):
                raise ValueError(f"{self.name} GPU {t.gpu} has no MIG device GI {t.gi_id} / CI {t.ci_id}")
            if t.is_mps and (self.mps is None or t.gpu not in self.mps.gpus):
                raise ValueError(f"{self.name} GPU {t.gpu} is not served by an MPS daemon")
        if job.start_t <= 0:
            self._launch(job, age=-job.start_t)
        else:
            self.pending.append(job)

    def schedule_mps(self, t: int, action: str, reason: str = "") -> None:
        """Start or stop the MPS control daemon at second ``t``; stopping kills its clients."""
        if self.mps is None or action not in ("start", "stop"):
            raise ValueError(f"{self.name}: cannot {action} an MPS daemon here")
        self._mps_actions.append((t, action, reason))

    def start_mps_now(self) -> None:
        """Have the MPS daemon running from the first frame, started before the timeline (no event)."""
        if self.mps is None:
            raise ValueError(f"{self.name} has no MPS daemon")
        self.mps.running = True
        self.mps.control_pid = self.pids.next()

    def warm_up(self, seconds: int = 60) -> None:
        """Let temperatures settle under the jobs already running, so the first frame is not cold."""
        for _ in range(seconds):
            self._snapshot()

    # -- one second ---------------------------------------------------------------------------
    def step(self, t: int) -> tuple[NodeSnapshot, list[Event]]:
        """The node at second ``t`` and the events of that second, in the order they happened."""
        ts = self.t0 + t
        events: list[Event] = []
        for at, action, reason in self._mps_actions:
            if at == t:
                events += self._mps_stop(ts, reason) if action == "stop" else self._mps_start(ts)
        for job in [j for j in self.running if j.end_t is not None and j.end_t <= t]:
            self.running.remove(job)
            events.append(self._ended(job, ts))
        for job in self.pending:
            if job.submit_t == t:
                events.append(self._event(ts, "job_submitted", job, self._submitted_text(job)))
        for job in [j for j in self.pending if j.start_t <= t]:
            self.pending.remove(job)
            if job.is_mps and (self.mps is None or not self.mps.running):
                job.exit_code = 1
                events.append(self._event(ts, "job_failed", job, f"{job.job_id} failed: no MPS daemon to connect to"))
                continue
            self._launch(job, age=0)
            pids = ", ".join(str(r.pid) for r in job.ranks)
            where = f"GPU {','.join(map(str, job.gpus))}"
            events.append(
                self._event(ts, "job_started", job, f"{job.job_id} started on {self.name} {where} (pid {pids})")
            )
        rng = self.rng
        for job in self.running:
            assert job.state is not None
            job.state.step(rng)
        return self._snapshot(), events

    # -- internals ----------------------------------------------------------------------------
    def _launch(self, job: Job, age: int) -> None:
        mps = self.mps
        if job.is_mps and (mps is None or not mps.running):
            raise ValueError(f"{self.name}: MPS client {job.job_id} starts while no MPS daemon runs")
        job.state = Load(job.load, age=age)
        job.ranks = [Rank(job, target, self.pids.next(), i) for i, target in enumerate(job.targets)]
        if job.is_mps and mps is not None and mps.server_pid is None:
            mps.server_pid = self.pids.next()  # the daemon spawns its server when the first client connects
        self.running.append(job)

    def _mps_start(self, ts: float) -> list[Event]:
        mps = self.mps
        assert mps is not None
        mps.running = True
        mps.control_pid = self.pids.next()
        mps.server_pid = None
        gpus = ",".join(map(str, mps.gpus))
        text = f"MPS control daemon started on {self.name} (pid {mps.control_pid}) for GPU {gpus}"
        return [Event(ts, "mps_started", text, self.name, mps.gpus, None, (("pipe_directory", MPS_PIPE_DIRECTORY),))]

    def _mps_stop(self, ts: float, reason: str) -> list[Event]:
        mps = self.mps
        assert mps is not None
        text = f"MPS control daemon stopped on {self.name} (pid {mps.control_pid})" + (f": {reason}" if reason else "")
        events = [Event(ts, "mps_stopped", text, self.name, mps.gpus)]
        mps.running = False
        mps.control_pid = mps.server_pid = None
        for job in [j for j in self.running if j.is_mps]:
            self.running.remove(job)
            job.exit_code = 1
            why = reason or "the MPS daemon stopped"
            events.append(
                self._event(ts, "job_failed", job, f"{job.job_id} failed: {why}; the client lost its MPS server")
            )
        return events

    def _ended(self, job: Job, ts: float) -> Event:
        assert job.state is not None
        runtime = _duration(job.state.age)
        if job.exit_code:
            return self._event(ts, "job_failed", job, f"{job.job_id} failed after {runtime} (exit {job.exit_code})")
        return self._event(ts, "job_ended", job, f"{job.job_id} finished after {runtime} (exit 0)")

    def _submitted_text(self, job: Job) -> str:
        n = len(job.targets)
        what = "MPS client" if job.is_mps else "MIG device" if job.targets[0].gi_id is not None else "GPU"
        return f"{job.user} submitted {job.job_id} ({n} {what}{'s' if n > 1 else ''}): {job.command}"

    def _event(self, ts: float, kind: str, job: Job, message: str) -> Event:
        data = [("user", job.user), ("command", job.command)]
        if job.ranks:
            data.append(("pids", ",".join(str(r.pid) for r in job.ranks)))
        t = job.targets[0]
        if t.gi_id is not None:
            gpu = self.gpus[t.gpu]
            uuid = next(
                ci.mig_uuid
                for gi in gpu.instances or ()
                if gi.gi_id == t.gi_id
                for ci in gi.compute_instances
                if ci.ci_id == t.ci_id
            )
            data += [("gi_id", str(t.gi_id)), ("ci_id", str(t.ci_id)), ("mig_device", uuid or "")]
        if t.mps_threads is not None:
            data.append(("active_thread_percentage", str(t.mps_threads)))
        return Event(ts, kind, message, self.name, job.gpus, job.job_id, tuple(data))

    def _snapshot(self) -> NodeSnapshot:
        per_gpu: list[list[Rank]] = [[] for _ in self.gpus]
        for job in self.running:
            for r in job.ranks:
                per_gpu[r.target.gpu].append(r)
        mps = self.mps
        rng = self.rng
        gpus = []
        for gpu, ranks in zip(self.gpus, per_gpu, strict=True):
            if mps is not None and gpu.index in mps.gpus:
                view, server = self._mps_view(mps, ranks)
                gpus.append(gpu.snapshot(ranks, rng, view, server))
            else:
                gpus.append(gpu.snapshot(ranks, rng))
        resources = None
        if self.host is not None and self.host.memory_mib is not None:
            used = memory_used(self.host.memory_mib, (r for ranks in per_gpu for r in ranks))
            resources = replace(self.host, memory_used_mib=used)
        return NodeSnapshot(self.name, tuple(gpus), self.driver_version, self.cuda_version, resources=resources)

    def _mps_view(self, mps: MpsState, ranks: list[Rank]) -> tuple[MpsDaemon, ProcessInfo | None]:
        if not mps.running:
            return MpsDaemon(running=False), None
        clients = tuple(
            MpsClient(r.pid, r.target.mps_threads, r.mem, r.job.user, r.job.command) for r in ranks if r.target.is_mps
        )
        server = None
        if mps.server_pid is not None:
            # the server holds a context per client on every GPU it serves
            server = ProcessInfo(mps.server_pid, "C", 44 + 16 * len(clients), mps.user, MPS_SERVER_COMMAND)
        daemon = MpsDaemon(True, mps.control_pid, mps.server_pid, MPS_PIPE_DIRECTORY, MPS_LOG_DIRECTORY, clients)
        return daemon, server
