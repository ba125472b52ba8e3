"""What the queue keeps between submits for speed: one prepared ask per request shape and state, the same as a
fresh one; a refused shape refused again; a refresh starting over on the new state."""

from __future__ import annotations

import pytest
from sched_helpers import cluster

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.scheduler.build import GpuSpec, state_from_snapshot
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.place.placement import prepare
from gputui.core.scheduler.queue import Scheduler


@pytest.mark.parametrize(
    "opts",
    ["--gpus=2", "-w n0 --gpu-ids=0,1", "-N 2 --gpus-per-node=1 -c 4", "--gres=mps:30", "-x n1 --gpus=1 --mem=8G"],
)
def test_a_second_request_of_one_shape_gets_the_ask_prepare_gives(opts):
    q = Scheduler(cluster(("n[0-2]", 2, GpuSpec(mps=True)), cpus=16, mem_mib=65536))
    first = q.submit(parse_options(opts + " -t 10 -J a"), 0)
    other = parse_options(opts + " -t 20 -J b --nice=3")  # the same shape: time, name and nice are not in it
    second = q.submit(other, 1)
    assert first.shape == second.shape
    assert second.ask.request is other and second.ask == prepare(q.state, other)
    assert q.submit(first.request, 2).ask is first.ask  # the very same request: the very same ask


def test_a_refused_shape_is_refused_every_time():
    q = Scheduler(cluster(("n", 1, GpuSpec())))
    for _ in range(2):
        with pytest.raises(RequestError, match="--gpus=9"):
            q.submit(parse_options("--gpus=9"), 0)
    assert q.pending == []


def test_a_refresh_prepares_asks_on_the_new_state():
    gpus = tuple(GpuSnapshot(index=i, uuid=f"GPU-{i}", name="NVIDIA A100-SXM4-40GB") for i in range(2))
    snap = ClusterSnapshot(0, (NodeSnapshot("n", gpus),))
    q = Scheduler(state_from_snapshot(snap))
    old = q.submit(parse_options("-w n --gpus=1"), 0)
    q.refresh(snap)
    node = q.state.by_name["n"]
    assert old.ask.required[0] is node  # the refresh prepared the waiting job's ask again
    new = q.submit(parse_options("-w n --gpus=1 -J again"), 1)
    assert new.ask.required[0] is node and new.ask == prepare(q.state, new.request)


def test_submits_of_higher_priority_still_go_ahead():
    q = Scheduler(cluster(("n", 1, GpuSpec())))
    low = [q.submit(parse_options("--gpus=1"), 0) for _ in range(3)]
    high = q.submit(parse_options("--gpus=1 --priority=5"), 0)
    last = q.submit(parse_options("--gpus=1"), 0)
    assert q.pending == [high, *low, last]


def test_the_kept_heap_of_running_jobs_reserves_as_a_fresh_sort_does():
    from gputui.core.scheduler.reservation import reserve

    q = Scheduler(cluster(("n[0-3]", 2, GpuSpec())))
    jobs = [q.submit(parse_options(f"--gpus=1 -t {5 + (i * 7) % 11}"), 0) for i in range(8)]
    q.schedule(0)
    for j in jobs[::3]:  # some end early: their entries stay in the heap and must be skipped
        q.finish(j.id, 30)
    more = [q.submit(parse_options(f"--gpus=1 -t {3 + i}"), 30) for i in range(3)]
    head = q.submit(parse_options("-N 2 --gpus-per-node=2 -t 60"), 31)
    q.schedule(31)
    assert q.head is head and head.reservation is not None and all(m.state == "RUNNING" for m in more)
    fresh = reserve(q.state, head, list(q.running.values()), 31, q.policy)  # a list: sorted from scratch
    assert fresh == head.reservation
