"""MPS start/stop from the GPU detail, against the fake nvidia-cuda-mps-control: a confirmation first, the
control program in a worker, its one line as a notification; refused for a replay, hidden by --readonly."""

from __future__ import annotations

from dataclasses import replace

from jobs_helpers import T0, machine
from list_source import ListSource
from test_mps_control import dirs, fake_bin  # noqa: F401 - fixtures
from textual.widgets import Button
from ui_jobs_app import SIZE, JobsTestApp, poll, settle

from gputui.core.model import ClusterSnapshot, MpsClient, MpsDaemon
from gputui.dashboard.mps import daemon_dirs, device_token, env_dirs, served_gpus
from gputui.mps import control
from gputui.mps.control import MpsDirs
from gputui.procfs.mps_detect import MpsScanner
from gputui.ui.dialogs.confirm_dialog import ConfirmDialog


def with_gpu0_mps(daemon: MpsDaemon | None, t: float = T0) -> ClusterSnapshot:
    snap = machine(t)
    node = snap.nodes[0]
    return replace(snap, nodes=(replace(node, gpus=(replace(node.gpus[0], mps=daemon), *node.gpus[1:])),))


def live_app(snaps: list[ClusterSnapshot], **kw: object) -> JobsTestApp:
    app = JobsTestApp(ListSource(snaps), None, **kw)  # type: ignore[arg-type]
    app.mps.timeout_s = 5.0
    app.gpu_key = ("testnode", 0)
    return app


async def test_start_then_stop_the_daemon_of_the_highlighted_gpu(dirs: MpsDirs, monkeypatch) -> None:  # type: ignore[no-untyped-def] # noqa: F811
    monkeypatch.setenv("CUDA_MPS_PIPE_DIRECTORY", dirs.pipe_directory)
    monkeypatch.setenv("CUDA_MPS_LOG_DIRECTORY", dirs.log_directory)
    app = live_app([with_gpu0_mps(None)])
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and dialog._title == "Start an MPS control daemon for testnode GPU 0?"
        assert app.focused is dialog.query_one("#confirm-no", Button)
        assert "CUDA_VISIBLE_DEVICES=GPU-test-0" in str(dialog._body)
        await pilot.press("y")
        await settle(app, pilot)
        pid = control.daemon_pid(dirs)
        assert pid is not None
        assert app.notified[-1] == (
            f"MPS control daemon started (pid {pid}) for GPU GPU-test-0; "
            f"pipe directory {dirs.pipe_directory}, log directory {dirs.log_directory}"
        )
        (d,) = [x for x in MpsScanner("/proc").scan().daemons if x.pid == pid]
        assert d.visible_devices == "GPU-test-0"
        # the next poll shows the daemon on GPU 0; M now offers to stop it
        running = MpsDaemon(True, pid, None, dirs.pipe_directory, dirs.log_directory, (MpsClient(77, 50),))
        app.source.snaps.append(with_gpu0_mps(running, T0 + 1))
        await poll(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        assert app.screen._title == "Stop the MPS control daemon of testnode GPU 0?"  # type: ignore[attr-defined]
        assert "Its 1 client(s) lose their server and fail." in str(app.screen._body)  # type: ignore[attr-defined]
        await pilot.press("y")
        await settle(app, pilot)
        assert app.notified[-1] == f"MPS control daemon stopped (pid {pid}, pipe directory {dirs.pipe_directory})"
        assert control.daemon_pid(dirs) is None and not control.pid_alive(pid)


async def test_answering_no_runs_nothing_and_a_failure_is_one_error_line(dirs: MpsDirs, monkeypatch) -> None:  # type: ignore[no-untyped-def] # noqa: F811
    gone = MpsDaemon(True, 999_999, None, dirs.pipe_directory, dirs.log_directory)  # shown, but not running
    app = live_app([with_gpu0_mps(gone)])
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        await pilot.press("enter")  # No
        await settle(app, pilot)
        assert app.notified == []
        await pilot.press("M")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert app.notified == [f"no MPS control daemon runs on pipe directory {dirs.pipe_directory}"]


async def test_a_replay_has_no_local_daemon_and_readonly_hides_the_action() -> None:
    app = live_app([with_gpu0_mps(None)], replay=True)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        assert app.notified == ["MPS daemons are started and stopped on a live machine; this is a replay"]
    app = live_app([with_gpu0_mps(None)], readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmDialog) and app.notified == []


def test_directories_gpus_and_device_names() -> None:
    assert env_dirs({}) == MpsDirs("/tmp/nvidia-mps", "/var/log/nvidia-mps")
    assert env_dirs({"CUDA_MPS_PIPE_DIRECTORY": "/p", "CUDA_MPS_LOG_DIRECTORY": "/l"}) == MpsDirs("/p", "/l")
    snap = machine()
    node = snap.nodes[0]
    mps_gpu = node.gpus[3]  # behind the daemon with pid 100 and the test pipe directory
    assert daemon_dirs(mps_gpu, {}) == MpsDirs("/tmp/gputui-test-mps-pipe", "/var/log/nvidia-mps")
    assert served_gpus(node, mps_gpu) == [3]
    shared = replace(node, gpus=(replace(node.gpus[0], mps=mps_gpu.mps), *node.gpus[1:]))
    assert served_gpus(shared, mps_gpu) == [0, 3]
    assert device_token(node.gpus[0]) == "GPU-test-0"
    assert device_token(replace(node.gpus[0], uuid=None)) == "0"
