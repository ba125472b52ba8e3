"""Starting and stopping the MPS control daemon of the highlighted GPU: what to ask, and the call to make.

The daemon runs on this machine, so this is offered for a live source only; nvidia-cuda-mps-control runs in
a thread after a confirmation, and its one-line result becomes a notice.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.dashboard.outcomes import Confirm, Notice
from gputui.mps import control
from gputui.mps.control import ControlResult, MpsDirs
from gputui.procfs.mps_detect import DEFAULT_LOG_DIR, DEFAULT_PIPE_DIR

EXCLUSIVE = "Exclusive_Process"


def env_dirs(env: dict[str, str] | None = None) -> MpsDirs:
    """The directories a new daemon gets: CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY, else NVIDIA's."""
    e = os.environ if env is None else env
    return MpsDirs(
        e.get("CUDA_MPS_PIPE_DIRECTORY") or DEFAULT_PIPE_DIR, e.get("CUDA_MPS_LOG_DIRECTORY") or DEFAULT_LOG_DIR
    )


def daemon_dirs(gpu: GpuSnapshot, env: dict[str, str] | None = None) -> MpsDirs:
    """The directories of the daemon serving ``gpu`` as the snapshot shows it, the rest from the environment."""
    base = env_dirs(env)
    m = gpu.mps
    if m is None:
        return base
    return MpsDirs(m.pipe_directory or base.pipe_directory, m.log_directory or base.log_directory)


def served_gpus(node: NodeSnapshot, gpu: GpuSnapshot) -> list[int]:
    """The GPUs of ``node`` behind the same control daemon as ``gpu`` (by its pid or pipe directory)."""
    m = gpu.mps
    if m is None or not m.running:
        return [gpu.index]

    def same(g: GpuSnapshot) -> bool:
        o = g.mps
        if o is None or not o.running:
            return False
        if m.control_pid is not None:
            return o.control_pid == m.control_pid
        return m.pipe_directory is not None and o.pipe_directory == m.pipe_directory

    return [g.index for g in node.gpus if same(g)] or [gpu.index]


def device_token(gpu: GpuSnapshot) -> str:
    """How CUDA_VISIBLE_DEVICES names the GPU: its UUID (CUDA may number devices unlike NVML), else the index."""
    return gpu.uuid if gpu.uuid and gpu.uuid.startswith("GPU-") else str(gpu.index)


@dataclass(frozen=True, slots=True)
class MpsPlan:
    """What the MPS key would do: ``verb`` ("start" or "stop"), asked with ``confirm``, done by ``call``."""

    verb: str
    confirm: Confirm
    call: Callable[[], ControlResult]


class MpsController:
    """MPS daemon control for a live source (``replay``: the dashboard replays a recording: nothing to control)."""

    def __init__(self, *, replay: bool, timeout_s: float = 10.0) -> None:
        self.replay = replay
        self.timeout_s = timeout_s

    def plan(self, gpu: tuple[NodeSnapshot, GpuSnapshot] | None) -> Notice | MpsPlan:
        if self.replay:
            return Notice("MPS daemons are started and stopped on a live machine; this is a replay", "warning")
        if gpu is None:
            return Notice("Highlight the GPU whose MPS daemon to start or stop", timeout=5)
        node, g = gpu
        return self._stop(node, g) if g.mps is not None and g.mps.running else self._start(node, g)

    def _start(self, node: NodeSnapshot, gpu: GpuSnapshot) -> MpsPlan:
        dirs, token = env_dirs(), device_token(gpu)
        body: list[str | tuple[str, str]] = [
            f"Runs nvidia-cuda-mps-control -d with CUDA_VISIBLE_DEVICES={token}\n",
            (f"pipe directory {dirs.pipe_directory}\nlog directory  {dirs.log_directory}\n", "dim"),
            ("(CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY choose them.)", "dim"),
        ]
        if gpu.compute_mode not in (None, EXCLUSIVE):
            body.append(
                (
                    f"\nThe GPU's compute mode is {gpu.compute_mode}; MPS is usually run with {EXCLUSIVE} "
                    "(root: nvidia-smi -c EXCLUSIVE_PROCESS).",
                    "bold",
                )
            )
        title = f"Start an MPS control daemon for {node.name} GPU {gpu.index}?"
        timeout = self.timeout_s
        return MpsPlan(
            "start",
            Confirm(title, tuple(body), yes="Start daemon"),
            lambda: control.start_daemon(dirs, [token], timeout=timeout),
        )

    def _stop(self, node: NodeSnapshot, gpu: GpuSnapshot) -> MpsPlan:
        assert gpu.mps is not None
        dirs, gpus = daemon_dirs(gpu), served_gpus(node, gpu)
        pid = f" (pid {gpu.mps.control_pid})" if gpu.mps.control_pid is not None else ""
        clients = sum(len(g.mps.clients) for g in node.gpus if g.index in gpus and g.mps is not None)
        body: list[str | tuple[str, str]] = [
            f"Sends quit to the daemon{pid} on {dirs.pipe_directory}; it serves GPU ",
            ",".join(map(str, gpus)),
        ]
        if clients:
            body.append((f".\nIts {clients} client(s) lose their server and fail.", "bold"))
        else:
            body.append(". It has no clients now.")
        title = f"Stop the MPS control daemon of {node.name} GPU {gpu.index}?"
        timeout = self.timeout_s
        return MpsPlan(
            "stop", Confirm(title, tuple(body), yes="Stop daemon"), lambda: control.stop_daemon(dirs, timeout=timeout)
        )

    @staticmethod
    def done(verb: str, result: ControlResult) -> Notice:
        return Notice(result.message, "information" if result.ok else "error", 8, title=f"MPS {verb}")
