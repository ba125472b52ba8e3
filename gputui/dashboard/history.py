"""Recent samples of every GPU (utilization, memory, power, temperature), kept by the app for the history view.

A bounded ring per GPU is fed by each applied snapshot. In a replay the app refills it from the
recording after a jump or a seek (``Polling.refill_history``), and cuts it back when the replay steps
backwards, so that the graphs always show the minutes before the frame on screen.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

from gputui.core.model import ClusterSnapshot, GpuSnapshot
from gputui.dashboard.gpu_index import gpu_rows  # the one place row keys are made

WINDOW_S = 300.0  # what the graphs show: the last five minutes
# What the rings keep: the window and a few single steps back (a replay reads a longer way back from the
# recording again). Kept short so that the memory stops growing once the window is full.
KEEP_S = WINDOW_S + 15.0
MAX_SAMPLES = 1260  # per GPU: KEEP_S at four polls a second


class Sample(NamedTuple):
    """One GPU at one moment; None is N/A (or the GPU was lost).

    A named tuple, not a frozen dataclass: 64 GPUs make 64 samples a second, and a tuple is made
    several times faster.
    """

    t: float
    util: float | None
    mem: float | None  # per cent of the GPU's memory
    power: float | None  # watts
    power_limit: float | None
    temp: float | None  # °C
    lost: bool = False
    # per MIG instance with GPM figures: (GI id, profile, SM active % of its own slices or None); () without GPM
    instances: tuple[tuple[int, str | None, float | None], ...] = ()


def sample(t: float, gpu: GpuSnapshot) -> Sample:
    if gpu.lost:
        return Sample(t, None, None, None, gpu.power_limit_w, None, True)
    used, total = gpu.memory_used_mib, gpu.memory_total_mib
    mem = None if used is None or not total else min(100.0, max(0.0, used * 100 / total))
    util = None if gpu.utilization_gpu is None else float(gpu.utilization_gpu)
    temp = None if gpu.temperature_c is None else float(gpu.temperature_c)
    gis: tuple[tuple[int, str | None, float | None], ...] = ()
    if gpu.gpu_instances and any(gi.activity for gi in gpu.gpu_instances):
        gis = tuple(
            (
                gi.gi_id,
                gi.profile,
                None if gi.activity is None or gi.activity.sm_active is None else float(gi.activity.sm_active),
            )
            for gi in gpu.gpu_instances
            if gi.gi_id is not None
        )
    return Sample(t, util, mem, gpu.power_draw_w, gpu.power_limit_w, temp, False, gis)


class History:
    """Per-GPU rings of samples in time order; ``latest`` is the newest time held."""

    def __init__(self) -> None:
        self.rings: dict[str, deque[Sample]] = {}
        self.latest: float | None = None

    def clear(self) -> None:
        self.rings.clear()
        self.latest = None

    def add(self, snap: ClusterSnapshot) -> None:
        """Append ``snap``; a time not after the newest held is ignored (the same frame shown again)."""

        t = snap.timestamp
        if self.latest is not None and t <= self.latest:
            return
        rings, oldest = self.rings, t - KEEP_S
        for key, _, g in gpu_rows(snap):
            ring = rings.get(key)
            if ring is None:
                ring = rings[key] = deque(maxlen=MAX_SAMPLES)
            ring.append(sample(t, g))
            while ring[0].t < oldest:
                ring.popleft()
        self.latest = t

    def covers(self, t: float, since: float) -> bool:
        """True when the samples reach back a full window before ``t`` (or to ``since``, where the frames begin)."""
        firsts = [r[0].t for r in self.rings.values() if r]
        return bool(firsts) and min(firsts) <= max(since, t - WINDOW_S) + 1.0

    def cut_after(self, t: float) -> None:
        """Forget samples newer than ``t`` (the replay stepped back)."""
        for ring in self.rings.values():
            while ring and ring[-1].t > t:
                ring.pop()
        times = [r[-1].t for r in self.rings.values() if r]
        self.latest = max(times) if times else None

    def fill(self, snaps: Iterable[ClusterSnapshot]) -> None:
        """Replace everything with the samples of ``snaps`` (in time order)."""
        self.clear()
        for snap in snaps:
            self.add(snap)

    def replace(self, rings: dict[str, deque[Sample]], latest: float | None) -> None:
        self.rings, self.latest = rings, latest

    def series(self, key: str) -> list[Sample]:
        ring = self.rings.get(key)
        return list(ring) if ring else []


def frames_for_window(start_index: int, end_index: int, limit: int = 300) -> range:
    """Frame numbers to read for a window: at most ``limit`` of them, evenly spread, always ending at ``end_index``."""
    count = end_index - start_index + 1
    step = max(1, -(-count // limit))
    first = end_index - ((end_index - start_index) // step) * step
    return range(first, end_index + 1, step)
