"""MPS daemon changes between snapshots become events; a daemon restart fails the MPS jobs on its GPUs."""

from __future__ import annotations

from dataclasses import replace

from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsDaemon, NodeSnapshot
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
