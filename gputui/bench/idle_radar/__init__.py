"""`python -m gputui.bench idle_radar [--frames 1200] [--rounds 5]`: the idle radar's cost per frame on 64 GPUs.

8 nodes x 8 H100s with every value moving (the UI benchmarks' busy cluster), half the GPUs at 0-3 % (so that
idle rows are built), 32 GPUs held by queue jobs and the rest by their processes. Three things are timed on the
same frames, interleaved round by round: the radar's step as the dashboard runs it (holdings and verdict), the
rest of the dashboard model's frame (DashboardState.apply without the radar: sanitising, the GPU index, the
history), and a naive radar that keeps every reading of the window per unit and scans it each frame. Reported:
microseconds per frame (median of the rounds) and the radar's ratio to each.

(A package of one module: the benchmark folder already holds its 20 files.)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from gputui.core.idle import HeldJob, Holdings, UnitKey
from gputui.core.idle.readings import read_unit
from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant


def _frames(count: int) -> list[ClusterSnapshot]:
    from gputui.bench._ui_cluster import busy_frames

    out = []
    for f in busy_frames(count):
        nodes = tuple(
            replace(n, gpus=tuple(replace(g, utilization_gpu=g.index % 4) if g.index < 4 else g for g in n.gpus))
            for n in f.nodes
        )
        out.append(replace(f, nodes=nodes))
    return out


def _jobs(snap: ClusterSnapshot) -> list[HeldJob]:
    """A job on each even GPU: 32 whole-GPU jobs."""
    return [
        HeldJob(str(1000 + k), Allocation((NodeGrant(n.name, (GpuGrant(g.index),)),)), f"user{k % 7}", "train", 0.0)
        for k, (n, g) in enumerate((n, g) for n in snap.nodes for g in n.gpus if g.index % 2 == 0)
    ]


class _Naive:
    """A radar that keeps the window's readings per unit and looks at all of them each frame."""

    def __init__(self, threshold: int, window_frames: int) -> None:
        self.threshold = threshold
        self.n = window_frames
        self.seen: dict[UnitKey, deque[int | None]] = {}

    def step(self, snap: ClusterSnapshot, holdings: Holdings) -> int:
        gpus = {(n.name, g.index): g for n in snap.nodes for g in n.gpus}
        seen: dict[UnitKey, deque[int | None]] = {}
        idle = 0
        for key, holder in holdings.items():
            ring = self.seen.get(key) or deque(maxlen=self.n)
            ring.append(read_unit(key, holder, gpus.get((key.node, key.gpu)), self.threshold).util)
            seen[key] = ring
            if len(ring) == self.n and all(u is not None and u < self.threshold for u in ring):
                idle += 1
        self.seen = seen
        return idle


def _naive_step(
    naive: _Naive, queue: Holdings, held: frozenset[tuple[str, int]], kept: dict, snap: ClusterSnapshot
) -> int:  # type: ignore[type-arg]
    """The naive radar with the same holdings as the radar's (and the same cache of process holders)."""
    from gputui.core.idle import merge_holdings, process_holdings

    return naive.step(snap, merge_holdings(queue, process_holdings(snap, held, kept)))


def _time(run: Callable[[ClusterSnapshot], object], frames: list[ClusterSnapshot]) -> float:
    t = time.perf_counter()
    for f in frames:
        run(f)
    return (time.perf_counter() - t) / len(frames) * 1e6


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m gputui.bench idle_radar", description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1200, help="frames per round (one a second; default 1200)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    args = parser.parse_args(argv)
    from gputui.core.idle.holdings import held_gpus, holdings_from_jobs
    from gputui.dashboard.radar.watch import RadarWatch
    from gputui.dashboard.state import DashboardState

    frames = _frames(args.frames)
    jobs = _jobs(frames[0])
    queue = holdings_from_jobs(jobs)
    radar_us, model_us, naive_us = [], [], []
    idle_rows = 0
    for _ in range(args.rounds):
        watch = RadarWatch(window_s=600.0)
        watch.set_jobs(jobs)
        radar_us.append(_time(watch.step, frames))
        idle_rows = len(watch.last.idle) if watch.last is not None else 0
        state = DashboardState("bench")
        state._step_radar = lambda snap: None  # type: ignore[method-assign]  # the rest of the model's frame
        model_us.append(_time(state.apply, frames))
        naive = _Naive(5, 600)
        naive_us.append(_time(partial(_naive_step, naive, queue, held_gpus(queue), {}), frames))

    radar, model, slow = (statistics.median(x) for x in (radar_us, model_us, naive_us))
    gpus = frames[0].gpu_count
    print(f"idle radar on {gpus} GPUs, {args.frames} frames x {args.rounds} rounds (median of rounds):")
    print(f"  radar step (holdings + verdict)  {radar:8.1f} us/frame   ({idle_rows} idle rows at the end)")
    print(f"  dashboard model apply, no radar  {model:8.1f} us/frame   radar / model = {radar / model:.2f}")
    print(f"  naive window scan (600 frames)   {slow:8.1f} us/frame   radar / naive = {radar / slow:.2f}")
    print(f"  at 1 Hz the radar costs {radar / 1e4:.3f} % of one core")
    return 0
