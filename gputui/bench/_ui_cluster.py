"""A synthetic busy cluster for the UI benchmarks: 8 nodes x 8 H100s, 300 processes, every value moving.

Snapshots are built ahead of time and cycled, so that the source costs nothing while the UI is
measured; each one differs from the previous in every GPU (utilization, memory, temperature,
power and every process's memory).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot, ProcessInfo

NODES = 8
GPUS_PER_NODE = 8
PROCESSES = 300
T0 = 1_714_564_800.0  # 2024-05-01 12:00:00 UTC


def _walk(value: float, step: float, low: float, high: float, rnd: random.Random) -> float:
    """One step of a bounded random walk that always moves (a value that 'changes every second')."""
    delta = rnd.uniform(step / 4, step) * rnd.choice((-1, 1))
    moved = value + delta
    if not low <= moved <= high:
        moved = value - delta
    return min(max(moved, low), high)


@dataclass
class _Walker:
    """The moving values of one GPU; processes are [pid, memory MiB, user]."""

    node: int
    index: int
    util: float
    mem_util: float
    temp: float
    power: float
    procs: list[tuple[int, float, str]]

    def step(self, rnd: random.Random) -> GpuSnapshot:
        self.util = _walk(self.util, 12, 0, 100, rnd)
        self.mem_util = _walk(self.mem_util, 12, 0, 100, rnd)
        self.temp = _walk(self.temp, 2, 30, 90, rnd)
        self.power = _walk(self.power, 40, 60, 700, rnd)
        self.procs = [(pid, _walk(mib, 96, 100, 16000, rnd), user) for pid, mib, user in self.procs]
        procs = tuple(
            ProcessInfo(pid, "C", int(mib), user, f"python train_{pid % 10}.py --epochs 10")
            for pid, mib, user in self.procs
        )
        return GpuSnapshot(
            self.index,
            uuid=f"GPU-{self.node:02d}{self.index:02d}",
            name="NVIDIA H100 80GB HBM3",
            memory_total_mib=81559,
            memory_used_mib=sum(p.used_memory_mib or 0 for p in procs),
            utilization_gpu=round(self.util),
            utilization_memory=round(self.mem_util),
            temperature_c=round(self.temp),
            power_draw_w=round(self.power, 1),
            power_limit_w=700.0,
            compute_mode="Default",
            mig_mode_current=False,
            processes=procs,
        )


def busy_frames(count: int, seed: int = 7, nodes: int = NODES, per_node: int = GPUS_PER_NODE) -> list[ClusterSnapshot]:
    """``count`` one-second frames of ``nodes`` x ``per_node`` GPUs holding PROCESSES processes between them.

    Every GPU's utilization, memory, temperature and power and every process's memory move at
    every frame, as bounded random walks (a real GPU's load drifts rather than jumping at random).
    """
    rnd = random.Random(seed)
    total = nodes * per_node
    base, extra = divmod(PROCESSES, total) if total else (0, 0)
    walkers: list[_Walker] = []
    pid = 10_000
    for n in range(nodes):
        for g in range(per_node):
            k = base + (1 if n * per_node + g < extra else 0)
            procs = [(pid + j, rnd.uniform(500, 15000), f"user{(n + j) % 7}") for j in range(k)]
            pid += k
            walkers.append(
                _Walker(
                    n, g, rnd.uniform(0, 100), rnd.uniform(0, 100), rnd.uniform(35, 80), rnd.uniform(80, 650), procs
                )
            )
    frames = []
    for i in range(count):
        by_node: list[list[GpuSnapshot]] = [[] for _ in range(nodes)]
        for w in walkers:
            by_node[w.node].append(w.step(rnd))
        frames.append(
            ClusterSnapshot(T0 + i, tuple(NodeSnapshot(f"gpu-node-{n:02d}", tuple(g)) for n, g in enumerate(by_node)))
        )
    return frames


class CyclingSource:
    """A live-style source returning prebuilt frames in a loop; timestamps keep rising one second a poll."""

    def __init__(self, frames: list[ClusterSnapshot], description: str = "synthetic busy cluster") -> None:
        self.frames = frames
        self.description = description
        self.polls = 0

    def poll(self) -> ClusterSnapshot:
        snap = self.frames[self.polls % len(self.frames)]
        self.polls += 1
        return snap.with_time(T0 + self.polls)

    def close(self) -> None:
        pass
