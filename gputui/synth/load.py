"""How one job uses its GPU second by second: a start-up phase, then a mean-reverting walk with dips.

Memory behaves like a framework's caching allocator: it climbs in chunks during start-up, then stays
flat apart from rare steps up, and is never handed back until the process exits.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoadProfile:
    """The shape of a workload."""

    mean_util: float  # per cent, once warmed up
    mem_mib: int  # per process, once warmed up
    jitter: float = 4.0  # standard deviation of the per-second walk, per cent
    ramp_s: int = 15  # start-up: loading data, building the model
    period_s: int = 0  # every period_s seconds a dip (evaluation, checkpoint); 0 for none
    dip_s: int = 0
    mem_intensity: float = 0.45  # memory-controller busy time per unit of utilisation
    power_intensity: float = 0.85  # share of the power headroom a fully busy GPU draws
    mem_growth: float = 0.002  # chance per second of the allocator growing its pool


CONTEXT_MIB = 420  # what a fresh CUDA context holds before the program allocates anything


class Load:
    """The live state of a :class:`LoadProfile`: utilisation and memory now."""

    __slots__ = ("profile", "age", "util", "mem", "_mem_cap")

    def __init__(self, profile: LoadProfile, age: int = 0) -> None:
        self.profile = profile
        self.age = age
        self.util = profile.mean_util if age >= profile.ramp_s else 0.0
        self.mem = profile.mem_mib if age >= profile.ramp_s else min(profile.mem_mib, CONTEXT_MIB)
        self._mem_cap = int(profile.mem_mib * 1.12)

    def step(self, rng: random.Random) -> None:
        """Advance one second."""
        p = self.profile
        self.age += 1
        if self.age < p.ramp_s:
            # allocations come in four chunks while the model and data loaders are built
            self.mem = max(self.mem, p.mem_mib * (4 * self.age // p.ramp_s) // 4)
            self.util = rng.uniform(0.0, 12.0)
            return
        if self.mem < p.mem_mib:
            self.mem = p.mem_mib
        elif p.mem_growth and rng.random() < p.mem_growth:
            self.mem = min(self._mem_cap, self.mem + (p.mem_mib // 50 // 2) * 2)
        in_dip = p.period_s and (self.age % p.period_s) < p.dip_s
        target = 8.0 if in_dip else p.mean_util
        u = self.util + 0.3 * (target - self.util) + rng.gauss(0.0, p.jitter)
        self.util = 0.0 if u < 0.0 else 100.0 if u > 100.0 else u

    @property
    def util_pct(self) -> int:
        return int(self.util + 0.5)
