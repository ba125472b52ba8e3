"""Starting and stopping the MPS control daemon of the highlighted GPU from the dashboard, mixed into the app.

The daemon runs on this machine, so this is offered for a live source only; nvidia-cuda-mps-control runs in
a thread worker after a confirmation, and its one-line result becomes a notification.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import work
from textual.message import Message

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.mps import control
from gputui.mps.control import ControlResult, MpsDirs
from gputui.procfs.mps_detect import DEFAULT_LOG_DIR, DEFAULT_PIPE_DIR
from gputui.ui.confirm_dialog import ConfirmDialog

if TYPE_CHECKING:
    from textual.app import App

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


class MpsControlDone(Message):
    def __init__(self, verb: str, result: ControlResult) -> None:
        super().__init__()
        self.verb = verb
        self.result = result


class MpsControls:
    """Mixed into the app; it needs ``highlighted_gpu()`` and ``replay`` (None for a live source)."""

    mps_timeout_s = 10.0

    @property
    def _mapp(self) -> App[Any]:
        return cast("App[Any]", self)

    def highlighted_gpu(self) -> tuple[NodeSnapshot, GpuSnapshot] | None:
        return None

    def request_poll(self) -> None:
        pass

    def action_mps_toggle(self) -> None:
        if getattr(self, "replay", None) is not None:
            self._mapp.notify(
                "MPS daemons are started and stopped on a live machine; this is a replay", severity="warning"
            )
            return
        hit = self.highlighted_gpu()
        if hit is None:
            self._mapp.notify("Highlight the GPU whose MPS daemon to start or stop", timeout=5)
            return
        node, gpu = hit
        if gpu.mps is not None and gpu.mps.running:
            self._confirm_stop(node, gpu)
        else:
            self._confirm_start(node, gpu)

    def _confirm_start(self, node: NodeSnapshot, gpu: GpuSnapshot) -> None:
        dirs, token = env_dirs(), device_token(gpu)
        body = Text(f"Runs nvidia-cuda-mps-control -d with CUDA_VISIBLE_DEVICES={token}\n")
        body.append(f"pipe directory {dirs.pipe_directory}\nlog directory  {dirs.log_directory}\n", style="dim")
        body.append("(CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY choose them.)", style="dim")
        if gpu.compute_mode not in (None, EXCLUSIVE):
            body.append(
                f"\nThe GPU's compute mode is {gpu.compute_mode}; MPS is usually run with {EXCLUSIVE} "
                "(root: nvidia-smi -c EXCLUSIVE_PROCESS).",
                style="bold",
            )

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_mps("start", lambda: control.start_daemon(dirs, [token], timeout=self.mps_timeout_s))

        title = f"Start an MPS control daemon for {node.name} GPU {gpu.index}?"
        self._mapp.push_screen(ConfirmDialog(title, body, yes="Start daemon"), answered)

    def _confirm_stop(self, node: NodeSnapshot, gpu: GpuSnapshot) -> None:
        assert gpu.mps is not None
        dirs, gpus = daemon_dirs(gpu), served_gpus(node, gpu)
        pid = f" (pid {gpu.mps.control_pid})" if gpu.mps.control_pid is not None else ""
        clients = sum(len(g.mps.clients) for g in node.gpus if g.index in gpus and g.mps is not None)
        body = Text(f"Sends quit to the daemon{pid} on {dirs.pipe_directory}; it serves GPU ")
        body.append(",".join(map(str, gpus)))
        if clients:
            body.append(f".\nIts {clients} client(s) lose their server and fail.", style="bold")
        else:
            body.append(". It has no clients now.")

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_mps("stop", lambda: control.stop_daemon(dirs, timeout=self.mps_timeout_s))

        title = f"Stop the MPS control daemon of {node.name} GPU {gpu.index}?"
        self._mapp.push_screen(ConfirmDialog(title, body, yes="Stop daemon"), answered)

    @work(thread=True, group="mps")
    def _run_mps(self, verb: str, call: Any) -> None:
        self._mapp.post_message(MpsControlDone(verb, call()))

    def on_mps_control_done(self, message: MpsControlDone) -> None:
        r = message.result
        self._mapp.notify(
            r.message, title=f"MPS {message.verb}", severity="information" if r.ok else "error", timeout=8
        )
        self.request_poll()
