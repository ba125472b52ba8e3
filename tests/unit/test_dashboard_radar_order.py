"""After a jump in a replay two threads answer: the poll (the frame at the new position, with the job queue's
simulated jobs drawn in) and the history read (a radar primed on the recording's frames before it). The idle
radar the dashboard keeps must not depend on which came first (CI once drew the idle view each way)."""

from __future__ import annotations

import dataclasses

import pytest

from gputui.cli.source_factory import open_source
from gputui.core.model import ClusterSnapshot
from gputui.dashboard.state import DashboardState
from gputui.resources import demo_recording

pytestmark = pytest.mark.skipif(not demo_recording().exists(), reason="the demo recording is not built")


def drawn(snap: ClusterSnapshot) -> ClusterSnapshot:
    """The frame as the poll thread delivers it with jobs drawn in: here every GPU busy and 1 GiB more used."""
    nodes = tuple(
        dataclasses.replace(
            n,
            gpus=tuple(
                dataclasses.replace(g, utilization_gpu=100, memory_used_mib=(g.memory_used_mib or 0) + 1024)
                for g in n.gpus
            ),
        )
        for n in snap.nodes
    )
    return dataclasses.replace(snap, nodes=nodes)


def radar_rows(order: str) -> tuple[object, ...]:
    opened = open_source("demo")
    replay = opened.source
    try:
        state = DashboardState("demo", replay)
        state.apply(replay.poll())
        frame = drawn(replay.seek(replay.start_time + 180))
        primed = state.primed_radar(replay)  # what the history thread makes
        if order == "poll first":
            state.apply(frame)
            state.take_radar(primed)
        else:
            state.take_radar(primed)
            state.apply(frame)
        last = state.radar.last
        assert last is not None and last.timestamp == frame.timestamp
        return last.idle + last.unknown
    finally:
        replay.close()


def test_the_radar_after_a_jump_does_not_depend_on_which_thread_answered_first() -> None:
    poll_first, history_first = radar_rows("poll first"), radar_rows("history first")
    assert poll_first == history_first
    # and it judged the frame shown (the drawn one), not only the recording's
    assert poll_first and all(row.gpu_util == 100 for row in poll_first)  # type: ignore[attr-defined]
