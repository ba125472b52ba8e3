"""The recorder and its loop, on an injected clock: live polling, MPS events, replays re-recorded, stopping."""

from __future__ import annotations

import shutil
import signal
import threading
from dataclasses import replace

import pytest
from conftest import FIXTURES
from fakes.proc_tree import user_of, write_node
from recording_helpers import frames

from gputui.core.clock import ManualClock
from gputui.core.errors import RecordingError
from gputui.core.model import ClusterSnapshot, Event, NodeSnapshot
from gputui.record_loop import StopSignal, record, record_live, record_replay
from gputui.recorder import Recorder
from gputui.sources.base import MemoryFrames
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml
from gputui.sources.nvsmi import load_nvsmi_log
from gputui.sources.recording import RecordingReader
from gputui.sources.replay import ReplaySource

DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"


class Waiter:
    """Waits by moving a manual clock; asks to stop after ``stop_after`` waits."""

    def __init__(self, clock: ManualClock, stop_after: int | None = None) -> None:
        self.clock, self.stop_after = clock, stop_after
        self.requested = False
        self.waits: list[float] = []

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 6))
        if seconds > 0:
            self.clock.advance(seconds)
        if self.stop_after is not None and len(self.waits) >= self.stop_after:
            self.requested = True
        return self.requested


class Scripted:
    """A live-like source whose polls take ``costs`` seconds of the manual clock each."""

    description = "scripted"

    def __init__(self, clock: ManualClock, costs: list[float]) -> None:
        self.clock, self.costs = clock, costs
        self.started: list[float] = []
        self.base = frames(1)[0]

    def poll(self) -> ClusterSnapshot:
        self.started.append(self.clock.now)
        self.clock.advance(self.costs[min(len(self.started) - 1, len(self.costs) - 1)])
        return self.base.with_time(1_800_000_000 + self.clock.now)

    def close(self) -> None:
        pass


def test_polls_every_interval_and_a_slow_poll_delays_the_next_instead_of_piling_up(tmp_path):
    clock = ManualClock(100.0)
    src = Scripted(clock, [0.5, 3.0, 0.5, 0.5])
    with Recorder(tmp_path / "r.gtrec") as rec:
        stats = record_live(src, rec, Waiter(clock), interval=2.0, duration=7.0, clock=clock.monotonic)
    # the poll at 102 took 3 s: the next starts when it finished (105), not at 104 and not twice
    assert src.started == [100.0, 102.0, 105.0] and stats.stopped_by == "duration"
    r = RecordingReader(tmp_path / "r.gtrec")
    assert r.frame_count == 3 and r.index.clean
    assert [r.timestamp(i) - 1_800_000_000 for i in range(3)] == [100.5, 105.0, 105.5]


def test_a_stop_request_ends_after_the_frame_in_hand(tmp_path):
    clock = ManualClock()
    waiter = Waiter(clock, stop_after=3)
    with Recorder(tmp_path / "r.gtrec") as rec:
        stats = record_live(Scripted(clock, [0.1]), rec, waiter, interval=1.0, clock=clock.monotonic)
    assert (stats.frames, stats.stopped_by) == (3, "signal")
    assert waiter.waits == [0.9, 0.9, 0.9]
    assert RecordingReader(tmp_path / "r.gtrec").frame_count == 3


def test_mps_daemon_changes_between_polls_are_recorded_as_events(tmp_path):
    node = RecordingReader(DEMO).frame(300).node("node04")
    proc = tmp_path / "proc"
    write_node(proc, node)
    no_mps = replace(
        node,
        gpus=tuple(replace(g, mps=None, processes=tuple(p for p in g.processes if p.type == "G")) for g in node.gpus),
    )
    fake = FakeNvml(node)
    clock = ManualClock()
    src = NvmlSource(fake, node_name="node04", proc_root=str(proc), users=user_of, clock=lambda: 1e9 + clock.now)
    script = iter([lambda: stop_daemon(), lambda: start_again()])

    def stop_daemon() -> None:
        shutil.rmtree(proc / "714558")
        shutil.rmtree(proc / "714956")
        fake.load(no_mps)

    def start_again() -> None:
        restarted = replace(
            node, gpus=tuple(replace(g, mps=replace(g.mps, control_pid=800000, server_pid=None)) for g in node.gpus)
        )
        write_node(proc, restarted)
        fake.load(replace(restarted, gpus=tuple(replace(g, processes=()) for g in restarted.gpus)))

    class Stepper(Waiter):
        def wait(self, seconds: float) -> bool:
            next(script, lambda: None)()
            return super().wait(seconds)

    with Recorder(tmp_path / "r.gtrec") as rec:
        stats = record_live(src, rec, Stepper(clock, stop_after=3), interval=2.0, clock=clock.monotonic)
    assert stats.frames == 3 and stats.events == 2
    events = RecordingReader(tmp_path / "r.gtrec").events
    assert [(e.kind, e.timestamp, e.gpus, e.message) for e in events] == [
        ("mps_stopped", 1e9 + 2, (0, 1), "MPS control daemon stopped on node04 (pid 714558) for GPU 0,1"),
        ("mps_started", 1e9 + 4, (0, 1), "MPS control daemon started on node04 (pid 800000) for GPU 0,1"),
    ]


def test_an_nvidia_smi_log_is_converted_frame_by_frame(tmp_path):
    log = load_nvsmi_log(FIXTURES / "nvidia-smi" / "exporter-h100-mig-590.48.01.txt")
    replay = ReplaySource(MemoryFrames(log.frames), "log")
    with Recorder(tmp_path / "c.gtrec") as rec:
        stats = record(replay, rec, Waiter(ManualClock()), interval=None)
    r = RecordingReader(tmp_path / "c.gtrec")
    assert (stats.frames, r.frame_count) == (2, 2)
    assert [r.frame(i) for i in range(2)] == log.frames


def test_a_recording_is_re_recorded_with_its_events_and_a_duration_cut(tmp_path):
    src = ReplaySource(RecordingReader(DEMO), "demo")
    with Recorder(tmp_path / "d.gtrec") as rec:
        stats = record_replay(src, rec, Waiter(ManualClock()), duration=120)
    r, demo = RecordingReader(tmp_path / "d.gtrec"), RecordingReader(DEMO)
    assert r.frame_count == 120 and stats.stopped_by == "duration"
    assert all(r.frame(i) == demo.frame(i) for i in (0, 57, 119))
    assert r.events == [e for e in demo.events if e.timestamp <= demo.timestamp(119)]
    assert len(r.events) >= 5 and {e.kind for e in r.events} >= {"job_started"}


def test_a_paced_replay_waits_between_frames_and_stops_on_request(tmp_path):
    src = ReplaySource(RecordingReader(DEMO), "demo")
    waiter = Waiter(ManualClock(), stop_after=5)
    with Recorder(tmp_path / "p.gtrec") as rec:
        stats = record_replay(src, rec, waiter, interval=0.25)
    assert waiter.waits == [0.25] * 5 and (stats.frames, stats.stopped_by) == (5, "signal")
    assert RecordingReader(tmp_path / "p.gtrec").index.clean


def test_appending_continues_a_recording_but_never_goes_back_in_time(tmp_path):
    path = tmp_path / "a.gtrec"
    snaps = frames(6)
    with Recorder(path) as rec:
        for s in snaps[:3]:
            rec.append(s)
    with Recorder(path) as rec:
        assert rec.existing_frames == 3
        for s in snaps[3:]:
            rec.append(s)
        with pytest.raises(RecordingError, match="would come before the recording's end"):
            rec.append(snaps[0])
    r = RecordingReader(path)
    assert [r.frame(i) for i in range(6)] == snaps


def test_events_from_another_thread_land_in_the_file(tmp_path):
    path = tmp_path / "e.gtrec"
    snaps = frames(40)
    with Recorder(path) as rec:
        t = threading.Thread(
            target=lambda: [rec.add_event(Event(snaps[0].timestamp + i, "note", f"n{i}")) for i in range(40)]
        )
        t.start()
        for s in snaps:
            rec.append(s)
        t.join()
    r = RecordingReader(path)
    assert r.frame_count == 40 and sorted(e.message for e in r.events) == sorted(f"n{i}" for i in range(40))


def test_a_recorder_not_started_or_aimed_at_a_non_recording(tmp_path):
    with pytest.raises(RecordingError, match="not started"):
        Recorder(tmp_path / "x.gtrec").append(frames(1)[0])
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    with pytest.raises(RecordingError, match="not a gputui recording"):
        Recorder(text).start()
    assert text.read_text() == "hello\n"


def test_stop_signal_wakes_the_wait_from_a_signal_or_another_thread():
    stop = StopSignal()
    restore = stop.install((signal.SIGUSR1,))
    try:
        assert stop.wait(0.001) is False
        signal.raise_signal(signal.SIGUSR1)
        assert stop.wait(60) is True and stop.signal_name == "SIGUSR1"
    finally:
        restore()
        stop.close()
    other = StopSignal()
    t = threading.Thread(target=other.request)
    t.start()
    assert other.wait(60) is True  # returns at once, whichever of request and wait came first
    t.join()
    other.close()


def test_live_record_through_the_nvml_source_of_a_whole_node(tmp_path):
    node = RecordingReader(DEMO).frame(10).node("node01")
    clock = ManualClock()
    src = NvmlSource(FakeNvml(node), node_name="node01", proc_root=str(tmp_path), clock=lambda: 1e9 + clock.now)
    with Recorder(tmp_path / "n.gtrec") as rec:
        record(src, rec, Waiter(clock), interval=1.0, duration=3.0, clock=clock.monotonic)
    r = RecordingReader(tmp_path / "n.gtrec")
    assert r.frame_count == 3 and r.timestamp(2) - r.timestamp(0) == 2.0
    got: NodeSnapshot = r.frame(2).nodes[0]
    assert [g.uuid for g in got.gpus] == [g.uuid for g in node.gpus]
    assert [g.memory_used_mib for g in got.gpus] == [g.memory_used_mib for g in node.gpus]
