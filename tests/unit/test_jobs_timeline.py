"""A replay's queue on the replay's timeline (jobs.queue_clock): random submit / seek / step / reopen sequences on
the demo recording never fail a job, never start one on a frame older than the queue's clock, and never produce a
time outside the recording."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gputui.jobs.records import FAILED
from gputui.jobs.runners.simulated import SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore
from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.sources.replay import ReplaySource

READER = RecordingReader(demo_recording())
#: requests that fit the demo at any frame (whole GPUs and MIG instances; MPS jobs are killed, rightly, by the
#: demo's daemon restart, so they are left out)
REQUESTS = ["--gpus=1 -t 1:00", "--gpus=2 -t 3:00", "--gres=gpu:1g.10gb:1 -t 2:00", "--gpus=4 -N1 -t 0:30", "-G1"]

actions = st.lists(
    st.one_of(
        st.tuples(st.just("submit"), st.sampled_from(REQUESTS)),
        st.tuples(st.just("seek"), st.floats(0.0, 1.0)),
        st.tuples(st.just("step"), st.integers(-120, 120)),
        st.tuples(st.just("play"), st.integers(1, 40)),
        st.tuples(st.just("reopen"), st.none()),
        st.tuples(st.just("end"), st.none()),
    ),
    min_size=1,
    max_size=25,
)


def open_queue(root: Path, replay: ReplaySource) -> JobService:
    """A job service as a dashboard opens it: on the stored queue, the replay moved to the queue's clock."""
    store = JobStore(root / "jobs.db", busy_timeout_s=0.2)
    svc = JobService(store, SimRunner(), "replay:demo", span=(replay.start_time, replay.end_time))
    replay.seek(svc.clock.resume_at(replay.start_time))
    return svc


@given(actions)
def test_the_queue_never_judges_a_job_against_an_older_frame(steps) -> None:  # type: ignore[no-untyped-def]
    replay = ReplaySource(READER, "demo")
    start, end = replay.start_time, replay.end_time
    with tempfile.TemporaryDirectory() as tmp:
        svc = open_queue(Path(tmp), replay)
        svc.tick(replay.current())
        clock = svc.now()
        try:
            for kind, arg in steps:
                if kind == "submit":
                    rec = svc.submit(str(arg), ["x"])
                    assert rec.submit_time == clock  # on the queue's clock, not the frame's
                    continue
                if kind == "seek":
                    replay.seek(start + float(arg) * (end - start))
                elif kind == "step":
                    replay.step(int(arg))
                elif kind == "play":  # the frames a playing replay shows, one tick each
                    for _ in range(int(arg)):
                        replay.step(1)
                        svc.tick(replay.current())
                elif kind == "end":
                    replay.seek(end)
                elif kind == "reopen":
                    svc.close()
                    svc = open_queue(Path(tmp), replay)
                frame = replay.current()
                active_before = svc.store.active("replay:demo")
                r = svc.tick(frame)
                started = [e for e in r.events if e.kind == "job_started"]
                if started:
                    assert not r.paused and frame.timestamp >= clock  # judged on the frame at the clock or later
                assert start <= r.clock <= end
                if active_before:
                    assert r.clock >= clock  # time never runs backwards under a waiting or running job
                assert r.paused == (frame.timestamp < r.clock)
                clock = r.clock
            for rec in svc.list():
                assert rec.state != FAILED, (rec.id, rec.end_reason)
                for t in (rec.submit_time, rec.start_time, rec.end_time):
                    assert t is None or start <= t <= end, (rec.id, t)
                if rec.start_time is not None:
                    assert rec.start_time >= rec.submit_time
        finally:
            svc.close()


def test_a_stored_clock_past_the_recording_is_brought_back_into_it(tmp_path: Path) -> None:
    replay = ReplaySource(READER, "demo")
    store = JobStore(tmp_path / "jobs.db")
    with store.write() as con:  # a clock as the old model could leave it: minutes after the last frame
        store.set_clock(con, "replay:demo", replay.end_time + 272)
    store.close()
    svc = open_queue(tmp_path, replay)
    try:
        assert svc.now() == replay.end_time and replay.current().timestamp == replay.end_time
        job = svc.submit("--gpus=1", ["x"])
        assert svc.get(job.id).record.submit_time == replay.end_time
    finally:
        svc.close()
