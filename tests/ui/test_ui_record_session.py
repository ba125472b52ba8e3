"""Recording the session the dashboard shows: frames and events written on the recording's thread, the r key
and the --record path, the indicator, a clean file when the app closes, and write failures."""

from __future__ import annotations

import errno
from dataclasses import replace
from pathlib import Path

import pytest
from jobs_helpers import T0, machine
from list_source import ListSource
from test_ui_jobs_dashboard import until
from textual.widgets import Input
from ui_jobs_app import SIZE, JobsTestApp, poll, settle

from gputui.core.errors import RecordingError
from gputui.core.model import Event, MpsDaemon
from gputui.dashboard.session.controller import check_record_path, default_record_path
from gputui.dashboard.session.recorder import SessionRecording
from gputui.sources.recording import RecordingReader
from gputui.ui import GputuiApp, create_app
from gputui.ui.dialogs.prompt_dialog import PromptDialog
from gputui.ui.record_keys import RecordBadge


def read(path: Path) -> RecordingReader:
    r = RecordingReader(path)
    assert r.index.clean  # closed with its index
    return r


def test_frames_go_forward_only_and_events_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.gtrec"
    rec = SessionRecording(path, meta={"source": "test"})
    rec.start()
    for t in (T0, T0 + 1, T0 + 1, T0 - 5, T0 + 2):  # the same frame again, then a replay going back
        rec.add_snapshot(machine(t))
    rec.add_events([Event(T0 + 1, "job_submitted", "job 1 submitted", job_id="1")])
    summary = rec.stop()
    assert (summary.frames, summary.events, summary.skipped, summary.error) == (3, 1, 2, None)
    assert summary.skipped == 2 and summary.text() == f"recorded 3 frames and 1 events to {path}"
    r = read(path)
    assert [r.timestamp(i) for i in range(r.frame_count)] == [T0, T0 + 1, T0 + 2]
    assert [(e.kind, e.job_id) for e in r.events] == [("job_submitted", "1")]
    assert r.meta["source"] == "test"
    assert rec.stop() is summary  # a second stop changes nothing


def test_a_live_sessions_mps_daemon_changes_are_derived(tmp_path: Path) -> None:
    rec = SessionRecording(tmp_path / "m.gtrec")
    rec.start()
    first = machine(T0)
    node = first.nodes[0]
    restarted = replace(node, gpus=(*node.gpus[:-1], replace(node.gpus[-1], mps=MpsDaemon(True, 200, 201, "/p"))))
    rec.add_snapshot(first)
    rec.add_snapshot(replace(first, timestamp=T0 + 1, nodes=(restarted,)))
    rec.stop()
    kinds = [e.kind for e in read(tmp_path / "m.gtrec").events]
    assert sorted(kinds) == ["mps_started", "mps_stopped"]


def test_a_failed_write_stops_the_recording_with_one_line(tmp_path: Path) -> None:
    errors: list[str] = []
    rec = SessionRecording(tmp_path / "f.gtrec", on_error=errors.append)
    rec.start()
    rec.add_snapshot(machine(T0))
    rec.flush()

    def full(snap: object) -> list[Event]:
        raise OSError(errno.ENOSPC, "No space left on device")

    rec.recorder.append = full  # type: ignore[method-assign]
    rec.add_snapshot(machine(T0 + 1))
    summary = rec.stop()
    assert errors == [f"{tmp_path / 'f.gtrec'}: No space left on device"]
    assert summary.error == errors[0] and summary.frames == 1 and not rec.active
    assert read(tmp_path / "f.gtrec").frame_count == 1  # what was written before stays readable


def test_a_directory_cannot_be_recorded_into(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="is a directory"):
        SessionRecording(tmp_path).start()
    assert check_record_path(str(tmp_path)) == f"{tmp_path} is a directory"
    assert check_record_path(str(tmp_path / "nope" / "x.gtrec")) == f"no directory {tmp_path / 'nope'}"
    assert check_record_path(str(tmp_path / "x.gtrec")) is None
    assert check_record_path(" ") == "give the file to record into"
    assert default_record_path(T0).startswith("gputui-20") and default_record_path(T0).endswith(".gtrec")


async def test_record_flag_writes_each_applied_frame_with_jobs_and_closes_on_exit(svc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "session.gtrec"
    job = svc.submit("--gpus=1 -t 10:00 -J train", ["python", "train.py"])
    app = JobsTestApp(ListSource([machine(T0 + i) for i in range(1, 4)]), svc, record=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.record_keys.controller.recording is not None and app.record_keys.controller.recording.active
        for _ in range(3):
            await poll(app, pilot)
        badge = app.query_one(RecordBadge)
        assert badge.display and badge.text.plain == "● REC session.gtrec · 3 frames"
    r = read(path)  # the app's exit closed it
    assert r.frame_count == 3 and r.meta["recorded_by"].startswith("gputui ")
    gpu0 = r.frame(0).nodes[0].gpus[0]
    assert [p.command for p in gpu0.processes] == ["python train.py"]  # the frames as shown: jobs drawn in
    assert [(e.kind, e.job_id) for e in r.events] == [("job_submitted", str(job.id)), ("job_started", str(job.id))]


async def test_the_r_key_asks_for_a_file_and_toggles_recording(svc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "keyed.gtrec"
    app = JobsTestApp(ListSource([machine(T0 + i) for i in range(1, 5)]), svc)
    async with app.run_test(size=SIZE) as pilot:
        await poll(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        prompt = app.screen
        assert isinstance(prompt, PromptDialog) and prompt.query_one(Input).value.startswith("gputui-")
        prompt.query_one(Input).value = str(tmp_path)
        await pilot.press("enter")  # a directory: refused, the prompt stays
        await settle(app, pilot)
        assert app.screen is prompt
        prompt.query_one(Input).value = str(path)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.record_keys.controller.recording is not None and app.query_one(RecordBadge).display
        assert app.notified[-1] == f"recording this session to {path}; r stops"
        await poll(app, pilot)
        await poll(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert app.record_keys.controller.recording is None and not app.query_one(RecordBadge).display
        # the frame on screen when recording began, and the two polled after it
        assert app.notified[-1] == f"recorded 3 frames and 0 events to {path}"
        assert read(path).frame_count == 3


def _top_line(app: GputuiApp) -> str:
    """The screen's first line as drawn: the top bar and, while recording, the badge."""
    return "".join(seg.text for seg in app.screen._compositor.render_strips()[0])


@pytest.mark.parametrize("size", [(160, 50), (80, 24)], ids=["160x50", "80x24"])
async def test_the_real_dashboard_shows_the_rec_badge_while_recording(tmp_path: Path, size: tuple[int, int]) -> None:
    flag, keyed = tmp_path / "flag.gtrec", tmp_path / "keyed.gtrec"
    app = create_app(ListSource([machine(T0 + i) for i in range(1, 9)]), poll_interval=0.05, record=str(flag))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "● REC" in _top_line(app))  # --record: from the first frame
        line = _top_line(app)
        assert "1 Overview  2 Detail  3 History  4 Jobs" in line  # the tabs stay whole beside it
        assert ("flag.gtrec · " in line) is (size[0] >= 160)
        await pilot.press("4")  # every view has it
        await until(pilot, lambda: "● REC" in _top_line(app))
        await pilot.press("r")  # stops
        await until(pilot, lambda: "● REC" not in _top_line(app))
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, PromptDialog))
        app.screen.query_one(Input).value = str(keyed)
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, PromptDialog) and "● REC" in _top_line(app))
        await pilot.press("1")
        await until(pilot, lambda: "● REC" in _top_line(app))
    assert read(flag).frame_count >= 1 and read(keyed).frame_count >= 1
