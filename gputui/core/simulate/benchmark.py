"""One run of FGD's benchmark: a trace, a policy, a seed, a demand; and the policies it knows by name."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from gputui.core.scheduler.policies.bestfit import BestFitTrace
from gputui.core.scheduler.policies.clustering import ClusteringTrace
from gputui.core.scheduler.policies.dotprod import DotProdTrace
from gputui.core.scheduler.policies.fgd import FgdTrace
from gputui.core.scheduler.policies.fgd_auto import FgdAutoTrace
from gputui.core.scheduler.policies.fgd_cpu import FgdCpuTrace
from gputui.core.scheduler.policies.frag import Fragmenter
from gputui.core.scheduler.policies.packing import PackingTrace
from gputui.core.scheduler.policies.random_fit import RandomTrace
from gputui.core.scheduler.policies.trace_policy import TracePolicy
from gputui.core.simulate.arrivals import arrivals
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.metric import at, buckets
from gputui.core.simulate.workload import TraceError, TraceNode, TracePod, expected_workload

#: name -> a factory taking the trace's fragmentation measure (FGD's expected workload)
POLICIES: dict[str, Callable[[Fragmenter], TracePolicy]] = {
    "random": lambda f: RandomTrace(),
    "dotprod": lambda f: DotProdTrace(),
    "clustering": lambda f: ClusteringTrace(),
    "packing": lambda f: PackingTrace(),
    "bestfit": lambda f: BestFitTrace(),
    "fgd": lambda f: FgdTrace(f),
    "fgd-cpu": lambda f: FgdCpuTrace(f),
    "fgd-idle": lambda f: FgdCpuTrace(f, idle_priced=True),
    "fgd-auto": lambda f: FgdAutoTrace(f),
}
#: FGD's baselines, as its paper names them (the rest are gputui's own)
BASELINES = ("random", "dotprod", "clustering", "packing", "bestfit", "fgd")


def policy_names() -> list[str]:
    return list(POLICIES)


def make_policy(name: str, frag: Fragmenter) -> TracePolicy:
    factory = POLICIES.get(name)
    if factory is None:
        raise TraceError(f"unknown policy {name!r} (choose from {', '.join(POLICIES)})")
    return factory(frag)


@dataclass(frozen=True, slots=True)
class SeedRun:
    policy: str
    seed: int
    demand: int
    total_gpus: int
    alloc: dict[int, float]  # arrived % -> allocated % of the cluster's GPUs
    frag: dict[int, float]  # arrived % -> fragmented % of the cluster's GPUs (FGD's measure)
    arrived_pods: int
    placed_pods: int
    cpu_s: float = 0.0  # CPU seconds the run took (this process)

    @property
    def value(self) -> float | None:
        """The allocation ratio at the chosen demand."""
        return at(self.alloc, self.demand)


def run_seed(pods: list[TracePod], nodes: list[TraceNode], policy: str, seed: int, demand: int = 130) -> SeedRun:
    """FGD's protocol for one seed: arrivals in the seed's order, each pod tried once, dropped if it fits nowhere."""
    t0 = time.process_time()
    frag = Fragmenter(expected_workload(pods))
    pol = make_policy(policy, frag)
    arr = arrivals(pods, nodes, seed, demand)
    engine = Engine(arr.nodes, pol, frag, arr.rng.intn)
    total_gpus = sum(n.gpus for n in nodes)
    arrived_l: list[int] = []
    used_l: list[int] = []
    frag_l: list[float] = []
    arrived = placed = 0
    for pod in arr.pods:
        arrived += pod.total_gpu_milli
        if engine.place(pod) is not None:
            placed += 1
        arrived_l.append(arrived)
        used_l.append(engine.gpu_used)
        frag_l.append(engine.frag_sum)
    alloc, fr = buckets(arrived_l, used_l, total_gpus), buckets(arrived_l, frag_l, total_gpus)
    return SeedRun(policy, seed, demand, total_gpus, alloc, fr, len(arr.pods), placed, time.process_time() - t0)
