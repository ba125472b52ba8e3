"""MPS daemon changes between snapshots become events; a daemon restart fails the MPS jobs on its GPUs."""

from __future__ import annotations

from dataclasses import replace

from sched_helpers import cluster

from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsDaemon, NodeSnapshot
from gputui.core.scheduler.build import GpuSpec
from gputui.core.scheduler.jobs import FAILED, RUNNING
from gputui.core.scheduler.options import parse_options
from gputui.core.scheduler.queue import Scheduler
from gputui.mps.transitions import mps_events

ON = MpsDaemon(True, 500, 510, "/tmp/nvidia-mps", "/var/log/nvidia-mps")
OFF = MpsDaemon(False)


def snap(t: float, *states: MpsDaemon | None, lost: tuple[int, ...] = ()) -> ClusterSnapshot:
    gpus = tuple(GpuSnapshot(i, mps=m, lost=i in lost) for i, m in enumerate(states))
    return ClusterSnapshot(t, (NodeSnapshot("n1", gpus),))


def kinds(events):  # type: ignore[no-untyped-def]
    return [(e.kind, e.node, e.gpus, e.message) for e in events]


def test_a_daemon_appearing_and_going_away():
    assert mps_events(None, snap(1, ON, ON)) == []  # first sight: nothing happened yet
    started = mps_events(snap(1, OFF, OFF), snap(2, ON, ON))
    assert kinds(started) == [("mps_started", "n1", (0, 1), "MPS control daemon started on n1 (pid 500) for GPU 0,1")]
    assert started[0].timestamp == 2 and dict(started[0].data) == {"pipe_directory": "/tmp/nvidia-mps"}
    stopped = mps_events(snap(2, ON, ON), snap(3, OFF, OFF))
    assert kinds(stopped) == [("mps_stopped", "n1", (0, 1), "MPS control daemon stopped on n1 (pid 500) for GPU 0,1")]
    assert mps_events(snap(2, ON, ON), snap(3, ON, ON)) == []


def test_a_restart_is_a_stop_and_a_start():
    again = replace(ON, control_pid=600)
    assert [e.kind for e in mps_events(snap(1, ON), snap(2, again))] == ["mps_stopped", "mps_started"]


def test_a_gpu_that_stops_answering_does_not_make_up_a_stop():
    assert mps_events(snap(1, ON, ON), snap(2, ON, None)) == []
    assert mps_events(snap(1, ON, ON), snap(2, OFF, ON, lost=(1,))) == []


def test_clients_without_a_known_daemon_name_nothing():
    anonymous = MpsDaemon(True)
    assert mps_events(snap(1, OFF), snap(2, anonymous)) == []


def test_daemon_restart_fails_the_mps_jobs_on_those_gpus_only():
    s = cluster(("n1", 2, GpuSpec(mps=True)), ("n2", 1, GpuSpec(mps=True)))
    q = Scheduler(s)
    a = q.submit(parse_options("--gpus-per-node=2 --export=ALL,CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 -w n1"), 0)
    b = q.submit(parse_options("--gres=mps:50 -w n2"), 0)
    c = q.submit(parse_options("--gres=mps:30 -w n1"), 0)
    q.schedule(0)
    assert {j.state for j in (a, b, c)} == {RUNNING}
    c_gpu = c.allocation.nodes[0].gpus[0].index
    failed = q.mps_restarted("n1", [1 - c_gpu], 50.0, "MPS control daemon restarted")
    assert failed == [a.id]  # a holds both GPUs of n1; c is on the other one, b on another node
    assert (a.state, a.end_time, a.end_reason) == (FAILED, 50.0, "MPS control daemon restarted")
    assert c.state == RUNNING and b.state == RUNNING
    assert q.mps_restarted("n1", [c_gpu], 60.0, "MPS control daemon restarted") == [c.id]
    assert q.mps_restarted("n1", [0, 1], 70.0, "again") == []
    # their shares are released: nothing is held on n1 any more, b still holds its share on n2
    assert [g.mps_pct for g in q.state.by_name["n1"].gpus] == [0, 0]
    assert [g.mps_pct for g in q.state.by_name["n2"].gpus] == [50]


def test_whole_gpu_jobs_are_not_touched_by_an_mps_restart():
    s = cluster(("n1", 1, GpuSpec(mps=True)), ("n1x", 1, GpuSpec()))
    q = Scheduler(s)
    whole = q.submit(parse_options("--gpus=1 -w n1"), 0)
    q.schedule(0)
    assert q.mps_restarted("n1", [0], 5.0, "restart") == [] and whole.state == RUNNING
