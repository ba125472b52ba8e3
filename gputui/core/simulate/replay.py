"""Replays of real workloads: jobs arrive and leave on their recorded timeline, placed by a trace policy.

A job arrives at its ``creation_time`` and runs for ``deletion_time - creation_time`` seconds from when it starts
(its ``run_s`` where the source knows it apart: a job store's end - start; to the end of the timeline if neither is
known). A job that fits nowhere waits; whenever jobs end, the
waiting ones are tried again, oldest first, each one that fits starts (first-fit backfill; within one request
shape strictly in arrival order, and once a shape does not fit in a pass its later jobs are not tried). The
timeline ends at the last recorded time; jobs still waiting then never started, running ones are cut there.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

from gputui.core.scheduler.policies.frag import Fragmenter
from gputui.core.scheduler.policies.shapes import PodShape
from gputui.core.simulate.benchmark import make_policy
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.gorand import GoRand
from gputui.core.simulate.workload import TraceError, TraceNode, TracePod, expected_workload


@dataclass(frozen=True, slots=True)
class ReplayResult:
    policy: str
    jobs: int
    started: int
    never_started: int
    mean_wait_s: float
    p95_wait_s: float
    gpu_hours_allocated: float
    gpu_hours_idle: float
    mean_frag_pct: float  # FGD's fragmentation, % of the cluster's GPUs, averaged over time
    span_s: int
    #: (seconds from the start, GPU allocated %, GPU fragmented %) at up to :data:`POINTS` moments, evenly spaced
    timeline: tuple[tuple[int, float, float], ...] = ()

    def as_json(self) -> dict:
        out = {k: getattr(self, k) for k in self.__slots__}
        out["timeline"] = [list(p) for p in self.timeline]
        return out


#: How many moments of the timeline a result keeps (for the plot and JSON).
POINTS = 200


def percentile(values: list[float], pct: float) -> float:
    """The nearest-rank percentile (0 when there are no values)."""
    if not values:
        return 0.0
    s = sorted(values)
    return float(s[max(0, math.ceil(pct / 100 * len(s)) - 1)])


def replay(pods: list[TracePod], nodes: list[TraceNode], policy: str, seed: int = 42) -> ReplayResult:
    timed = sorted((p for p in pods if p.created is not None), key=lambda p: (p.created, p.name))
    if not timed:
        raise TraceError("the pod list has no creation_time: nothing to replay on a timeline")
    start = min(p.created for p in timed if p.created is not None)
    end = max(max(p.deleted or 0, p.created or 0) for p in timed)
    frag = Fragmenter(expected_workload(pods))
    rng = GoRand(seed)
    engine = Engine(nodes, make_policy(policy, frag), frag, rng.intn)
    total_gpus = sum(n.gpus for n in nodes) or 1
    arrivals = range(len(timed))  # job j is the j-th to arrive
    ends: list[tuple[int, int, int, tuple[int, ...]]] = []  # (time, job, node, gpus)
    waiting: dict[PodShape, deque[int]] = {}
    waits: list[float] = []
    gpu_s = 0.0  # thousandths-of-GPU x seconds allocated
    frag_s = 0.0
    now = start
    ai = 0

    def start_job(j: int, t: int) -> bool:
        pod = timed[j]
        got = engine.place(pod.shape)
        if got is None:
            return False
        created = pod.created or t
        run = pod.run_s if pod.run_s is not None else (pod.deleted - created) if pod.deleted is not None else end - t
        heapq.heappush(ends, (t + max(0, run), j, got[0], got[1]))
        waits.append(t - created)
        return True

    step = max(1, (end - start) // POINTS)
    samples: list[tuple[int, float, float]] = []
    scale = total_gpus * 10  # thousandths -> % of the cluster's GPUs

    def advance(t: int) -> None:
        nonlocal gpu_s, frag_s, now
        # the state held from ``now`` to ``t``: sampled at each multiple of ``step`` in between
        k = -(-(now - start) // step) * step + start
        while k < t:
            samples.append((k - start, round(engine.gpu_used / scale, 2), round(engine.frag_sum / scale, 2)))
            k += step
        gpu_s += engine.gpu_used * (t - now)
        frag_s += engine.frag_sum * (t - now)
        now = t

    while ai < len(arrivals) or ends:
        t_arr = timed[arrivals[ai]].created if ai < len(arrivals) else None
        t_end = ends[0][0] if ends else None
        t = min(x for x in (t_arr, t_end) if x is not None)
        if t > end:
            break
        advance(t)
        released = False
        while ends and ends[0][0] == t:
            _, j, r, gpus = heapq.heappop(ends)
            engine.release(r, timed[j].shape, gpus)
            released = True
        if released:
            for shape in sorted(waiting, key=lambda s: waiting[s][0]):
                q = waiting[shape]
                while q and start_job(q[0], t):
                    q.popleft()
                if not q:
                    del waiting[shape]
        while ai < len(arrivals) and timed[arrivals[ai]].created == t:
            j = arrivals[ai]
            ai += 1
            shape = timed[j].shape
            if shape in waiting or not start_job(j, t):
                waiting.setdefault(shape, deque()).append(j)
    advance(end)
    span = max(1, end - start)
    never = sum(len(q) for q in waiting.values()) + (len(arrivals) - ai)
    return ReplayResult(
        policy, len(timed), len(waits), never, round(sum(waits) / len(waits), 1) if waits else 0.0,
        round(percentile(waits, 95), 1), round(gpu_s / 1000 / 3600, 1),
        round((total_gpus * 1000 * span - gpu_s) / 1000 / 3600, 1), round(frag_s / span / total_gpus / 10, 2), span,
        tuple(samples),
    )  # fmt: skip
