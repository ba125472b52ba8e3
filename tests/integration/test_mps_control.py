"""Starting, querying and stopping an MPS control daemon, against the fake nvidia-cuda-mps-control on PATH."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import REPO

from gputui.cli import main
from gputui.mps import control
from gputui.mps.control import MpsDirs
from gputui.mps.status import GpuMode, collect_status, render_status
from gputui.procfs.mps_detect import MpsScanner
from gputui.sources.nvml_fake import FakeNvml

FAKES = REPO / "tests" / "support" / "fakes"


@pytest.fixture
def fake_bin(tmp_path, monkeypatch):
    """PATH with the fake MPS executables (and this interpreter as python3, for their shebang)."""
    b = tmp_path / "bin"
    b.mkdir()
    (b / "python3").symlink_to(sys.executable)
    for name in ("nvidia-cuda-mps-control", "nvidia-cuda-mps-server"):
        (b / name).symlink_to(FAKES / name)
    monkeypatch.setenv("PATH", f"{b}{os.pathsep}{os.environ.get('PATH', '')}")
    return b


@pytest.fixture
def dirs(fake_bin):
    """Fresh pipe and log directories (short paths: the control socket must fit a Unix socket name);
    any daemon left running there is stopped, by 'quit' or else by killing the PID it wrote."""
    base = Path(tempfile.mkdtemp(prefix="mps", dir="/tmp"))
    d = MpsDirs(str(base / "pipe"), str(base / "log"))
    try:
        yield d
    finally:
        pid = control.daemon_pid(d)
        if pid is not None:
            control.stop_daemon(d, timeout=5)
            if control.pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)


def test_start_query_and_stop(dirs):
    r = control.start_daemon(dirs, ("0", "1"), timeout=5)
    assert r.ok, r.message
    assert r.pid == control.daemon_pid(dirs) and r.pid is not None
    assert r.message == (
        f"MPS control daemon started (pid {r.pid}) for GPU 0,1; "
        f"pipe directory {dirs.pipe_directory}, log directory {dirs.log_directory}"
    )
    # the daemon got the directories and the GPUs in its environment, as /proc shows them
    (d,) = [x for x in MpsScanner("/proc").scan().daemons if x.pid == r.pid]
    assert (d.pipe_directory, d.log_directory, d.visible_devices) == (dirs.pipe_directory, dirs.log_directory, "0,1")
    assert control.server_list(dirs) == ()
    q = control.send_commands(dirs, ["start_server -uid 0", "get_default_active_thread_percentage"])
    assert q.ok and q.output.strip() == "100.0"
    (server,) = control.server_list(dirs) or ()
    # the server process is started by the daemon on its own time: give /proc a moment under load
    deadline = time.monotonic() + 5
    while True:
        (d,) = [x for x in MpsScanner("/proc").scan().daemons if x.pid == r.pid]
        if [s.pid for s in d.servers] == [server] or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [s.pid for s in d.servers] == [server]
    stop = control.stop_daemon(dirs, timeout=5)
    assert stop.ok and stop.message == f"MPS control daemon stopped (pid {r.pid}, pipe directory {dirs.pipe_directory})"
    assert control.daemon_pid(dirs) is None and not control.pid_alive(r.pid)
    log = Path(dirs.log_directory, "control.log").read_text()
    assert "Cmd:quit" in log and log.rstrip().endswith("Exit")


def test_a_second_start_is_refused_and_stop_without_a_daemon_says_so(dirs):
    first = control.start_daemon(dirs, timeout=5)
    again = control.start_daemon(dirs, timeout=5)
    assert not again.ok
    assert (
        again.message == f"an MPS control daemon already runs on pipe directory {dirs.pipe_directory} (pid {first.pid})"
    )
    assert control.stop_daemon(dirs, timeout=5).ok
    none = control.stop_daemon(dirs, timeout=5)
    assert not none.ok and none.message == f"no MPS control daemon runs on pipe directory {dirs.pipe_directory}"


def test_the_control_program_reports_its_own_failure(dirs, fake_bin):
    # a client command with no daemon: the program's own words come back as the message
    r = control.send_commands(dirs, ["get_server_list"])
    assert not r.ok and r.message == "nvidia-cuda-mps-control: Cannot find MPS control daemon process"
    assert control.server_list(dirs) is None


def test_a_missing_control_program_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    d = MpsDirs(str(tmp_path / "p"), str(tmp_path / "l"))
    for r in (control.start_daemon(d), control.stop_daemon(d), control.send_commands(d, ["get_server_list"])):
        assert not r.ok and r.message == control.MISSING
    assert not (tmp_path / "p").exists()


def test_an_uncreatable_log_directory(dirs, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = control.start_daemon(MpsDirs(dirs.pipe_directory, str(blocker / "logs")), timeout=5)
    assert not r.ok and r.message.startswith(f"cannot create the log directory {blocker / 'logs'}: ")
    assert r.message.endswith("(use --log-dir)")


@pytest.mark.parametrize("text", ["0, 1", "0,1", "GPU-ae5b492a-c297,1", "MIG-4c95c81f-523c-d0f9-708e-7fcc8300dcb5"])
def test_gpu_lists(text):
    assert ",".join(control.parse_gpu_list(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["", "0;1", "all", "0,,1", "$(reboot)"])
def test_bad_gpu_lists(text):
    with pytest.raises(control.GputuiError, match="^--gpus"):
        control.parse_gpu_list(text)


def test_status_shows_daemon_servers_modes_and_log_tails(dirs):
    control.start_daemon(dirs, ("1",), timeout=5)
    control.send_commands(dirs, ["start_server -uid 0"])
    pid = control.daemon_pid(dirs)
    (server,) = control.server_list(dirs) or ()
    frame = FakeNvml.from_snapshot(_demo_frame(), "node04")
    st = collect_status(dirs, modes=lambda: _modes(frame), tail_lines=3)
    (rep,) = [r for r in st.daemons if r.control.pid == pid]
    assert rep.server_list == (server,) and st.pipe_pid == pid
    text = "\n".join(render_status(st))
    assert f"MPS control daemon pid {pid} (user root)" in text
    assert f"  pipe directory: {dirs.pipe_directory}" in text and "  GPUs:           1" in text
    assert f"  get_server_list:  {server}" in text
    assert "  GPU 0  NVIDIA A100-SXM4-80GB  Exclusive_Process" in text
    control_log = [line for line in text.splitlines() if line.startswith(f"{dirs.log_directory}/control.log")]
    assert control_log == [f"{dirs.log_directory}/control.log (last 3 lines):"]
    assert "Server has started" in text  # from server.log


def test_status_without_nvml_says_why_compute_mode_is_na(dirs):
    from gputui.core.errors import NvmlUnavailable

    def no_driver():  # type: ignore[no-untyped-def]
        raise NvmlUnavailable("NVML not available: Driver Not Loaded")

    lines = render_status(collect_status(dirs, modes=no_driver))
    assert "  N/A (NVML not available: Driver Not Loaded)" in lines


def test_command_line_start_status_stop(dirs, capsys):
    args = ["--pipe-dir", dirs.pipe_directory, "--log-dir", dirs.log_directory]
    assert main(["mps", "start", "--gpus", "0", *args]) == 0
    pid = control.daemon_pid(dirs)
    assert capsys.readouterr().out.startswith(f"MPS control daemon started (pid {pid}) for GPU 0;")
    assert main(["mps", "status", *args]) == 0
    assert f"MPS control daemon pid {pid}" in capsys.readouterr().out
    assert main(["mps", "stop", *args]) == 0
    assert main(["mps", "stop", *args]) == 1
    err = capsys.readouterr().err
    assert err == f"gputui mps stop: no MPS control daemon runs on pipe directory {dirs.pipe_directory}\n"
    assert main(["mps", "start", "--gpus", "0;1", *args]) == 2
    assert "--gpus '0;1': expected GPU indices or UUIDs" in capsys.readouterr().err


def _demo_frame():  # type: ignore[no-untyped-def]
    from gputui.sources.recording import RecordingReader

    r = RecordingReader(REPO / "fixtures" / "demo" / "demo-cluster.gtrec")
    try:
        return r.frame(300)
    finally:
        r.close()


def _modes(fake: FakeNvml) -> tuple[GpuMode, ...]:
    from gputui.mps.status import compute_modes

    return compute_modes(fake)
