"""The scheduler benchmark's clusters and request streams.

A quarter of the nodes are MIG-partitioned, an eighth run MPS on every GPU, the rest are plain; each node has the
CPUs and memory of such a server (``host_builds.host_build``) and its plain GPUs are cut into 8 shards. A mixed stream
(single-node counts, multi-node gangs, device requests, MIG instances, MPS shares; with ``--stream new`` also
CPU- and memory-bound GPU jobs, CPU-only jobs, shards and thousandths of a GPU) arrives at a rate that keeps the
cluster busy and jobs end before their limits (the timed loop: :mod:`gputui.bench.scheduler.loop`).
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from gputui.bench.scheduler.loop import drive
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.queue import Scheduler
from gputui.core.scheduler.request import JobRequest

PLAIN = GpuSpec()
MPS = GpuSpec(mps=True)
MIG = GpuSpec(mig=("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"))


#: What ``--stream new`` adds to the old menu: (weight, options).
NEW_MENU: list[tuple[float, str]] = [
    (6, "--gpus=1 -c 24 --mem=160G"), (3, "--gpus=2 --cpus-per-gpu=28 --mem-per-gpu=120G"),
    (8, "-c 8 --mem=32G"), (3, "-c 64 --mem=256G"), (1, "-N 2 --ntasks-per-node=16 --mem=64G"),
    (6, "--gres=shard:2"), (3, "--gres=shard:4"), (6, "--gpu-milli=500"), (4, "--gpu-milli=250 -c 4"),
]  # fmt: skip


def cluster(nodes: int, config: SchedulerConfig) -> Scheduler:
    specs = []
    width = len(str(nodes))
    for i in range(nodes):
        kind = MIG if i % 4 == 3 else (MPS if i % 8 == 1 else PLAIN)
        specs.append(NodeSpec(f"node{str(i + 1).zfill(width)}", (kind,) * 8))
    return Scheduler(state_from_specs(specs, config))


def workload(nodes: int, seed: int, stream: str = "old") -> list[tuple[float, JobRequest]]:
    """A menu of parsed requests with their weights (parsing is timed separately: it is not placement)."""
    rng = random.Random(seed)
    width = len(str(nodes))
    plain = [i for i in range(nodes) if i % 4 != 3 and i % 8 != 1] or [0]
    menu: list[tuple[float, str]] = [
        (30, "--gpus=1"), (12, "--gpus=2"), (8, "--gpus=4"), (6, "--gpus=8"),
        (3, "-N 2 --gpus-per-node=8"), (2, "--gpus=12"),
        (10, "--gres=gpu:1g.5gb:1"), (5, "--gres=gpu:2g.10gb:1"), (4, "--gres=gpu:3g.20gb:1"),
        (2, "--gres=gpu:1g.5gb:2,gpu:2g.10gb:1"),
        (10, "--gres=mps:25"), (4, "--gpus-per-node=2 --export=CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50"),
    ]  # fmt: skip
    if stream == "new":
        menu += NEW_MENU
    out = [(w, parse_options(o)) for w, o in menu]
    for _ in range(200):  # device requests on random plain nodes
        n = rng.choice(plain)
        a, b = rng.sample(range(8), 2)
        out.append((0.02, parse_options(f"-w node{str(n + 1).zfill(width)} --gpu-ids={min(a, b)},{max(a, b)}")))
    return out


def run_size(nodes: int, decisions: int, seed: int, policy: str, backlog: int = 32, stream: str = "old",
             keep: list[Scheduler] | None = None, digest: bool = False) -> dict[str, Any]:  # fmt: skip
    """Fill the cluster (untimed), then time ``decisions`` starts in steady state (``keep`` gets the scheduler;
    ``digest``: hash the decisions and reasons, see :func:`loop.drive`)."""
    sched = cluster(nodes, SchedulerConfig(policy=policy, default_time_s=3600, shards_per_gpu=8))
    if keep is not None:
        keep.append(sched)
    return drive(sched, workload(nodes, seed, stream), nodes, decisions, seed, backlog, digest=digest)


def share_cost(nodes: int, seed: int, policy: str, rounds: int = 2000) -> dict[str, float]:
    """Median microseconds per placement (found, not applied) of a whole GPU, a shard and a thousandths share,
    timed in turn on one busy cluster (the new stream, after 2,000 decisions), so that all three see the same
    state."""
    from gputui.core.scheduler.place.finder import find_allocation
    from gputui.core.scheduler.place.placement import prepare

    keep: list[Scheduler] = []
    run_size(nodes, 2000, seed, policy, stream="new", keep=keep)
    sched = keep[0]
    kinds = (("whole", "--gpus=1"), ("shard", "--gres=shard:2"), ("milli", "--gpu-milli=500"))
    asks = {name: prepare(sched.state, parse_options(o)) for name, o in kinds}
    spent: dict[str, list[float]] = {name: [] for name in asks}
    found = dict.fromkeys(asks, 0)
    for _ in range(rounds):
        for name, ask in asks.items():
            t0 = time.perf_counter()
            got = find_allocation(sched.state, ask, sched.policy)
            spent[name].append(time.perf_counter() - t0)
            found[name] += got is not None
    # medians: a call that the machine's other work interrupted does not move them
    return {**{f"{k}_us": statistics.median(v) * 1e6 for k, v in spent.items()},
            **{f"{k}_found": v for k, v in found.items()}}  # fmt: skip
