"""Job service benchmark: submits into the SQLite store, and the cost of a tick with many jobs queued.

A simulated queue on a synthetic cluster of plain 8-GPU nodes: N jobs are submitted (timed), one tick starts
what fits, then steady ticks (nothing changed), ticks after another process submitted (a rebuild from the
store), and a preview are timed. Time is simulated; the store is a temporary file.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.jobs.records import User
from gputui.jobs.runners.simulated import SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore, Owner

T0 = 1_800_000_000.0


def snapshot(nodes: int, t: float) -> ClusterSnapshot:
    width = len(str(nodes))
    out = []
    for i in range(nodes):
        gpus = tuple(
            GpuSnapshot(
                g, f"GPU-{i}-{g}", "NVIDIA A100-SXM4-80GB", memory_total_mib=81920, memory_used_mib=0, utilization_gpu=0
            )  # fmt: skip
            for g in range(8)
        )
        out.append(NodeSnapshot(f"node{str(i + 1).zfill(width)}", gpus))
    return ClusterSnapshot(t, tuple(out), "bench")


def timed(fn: Callable[[], object], n: int) -> float:
    """Median milliseconds of ``n`` calls."""
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def run_one(nodes: int, jobs: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "jobs.db"
        owner = JobService(JobStore(db), SimRunner(), "replay:bench", user=User("bench", 1))
        snap = snapshot(nodes, T0)
        owner.tick(snap)
        t = time.perf_counter()
        for i in range(jobs):
            owner.submit(f"--gpus={1 + i % 4} -t {10 + i % 50}:00", ["train"])
        submit_ms = (time.perf_counter() - t) * 1000 / jobs
        clock = [T0]

        def tick() -> None:
            clock[0] += 1
            owner.tick(snap.with_time(clock[0]))

        first = timed(tick, 1)
        steady = timed(tick, repeat)
        other = JobService(JobStore(db), SimRunner(), "replay:bench", user=User("b", 2), process=Owner(-1, 0, "x"))

        def external() -> None:
            other.submit("--gpus=1 -t 5:00", ["more"])
            tick()

        rebuild = timed(external, repeat)
        preview = timed(lambda: owner.preview("--gpus=2 -t 30:00"), repeat)
        other.close()
        owner.close()
    return {"submit": submit_ms, "first": first, "steady": steady, "rebuild": rebuild, "preview": preview}


def main(argv: Sequence[str] = ()) -> int:
    p = argparse.ArgumentParser(prog="python -m gputui.bench jobs", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, nargs="+", default=[10, 100])
    p.add_argument("--jobs", type=int, nargs="+", default=[100, 1000])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(list(argv))
    print(
        "| nodes | jobs | submit ms/job | first tick ms | steady tick ms | tick after outside submit ms | preview ms |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in args.nodes:
        for j in args.jobs:
            r = run_one(n, j, args.repeat)
            print(f"| {n} | {j} | {r['submit']:.2f} | {r['first']:.1f} | {r['steady']:.1f} | {r['rebuild']:.1f} | "
                  f"{r['preview']:.1f} |")  # fmt: skip
    return 0
