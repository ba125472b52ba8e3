"""Scheduler benchmark: decisions per second on synthetic clusters of 10 to 10,000 nodes x 8 GPUs.

A quarter of the nodes are MIG-partitioned, an eighth run MPS on every GPU, the rest are plain; each node has the
CPUs and memory of such a server (``host_builds.host_build``) and its plain GPUs are cut into 8 shards. A mixed stream
(single-node counts, multi-node gangs, device requests, MIG instances, MPS shares; with ``--stream new`` also
CPU- and memory-bound GPU jobs, CPU-only jobs, shards and thousandths of a GPU) arrives at a rate that keeps the
cluster busy, jobs end before their limits, and every submit, pass and finish is timed. Time is simulated.
``--share-cost`` times one placement of a fractional share against one of a whole GPU on the same busy cluster.
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics
import time
from collections.abc import Sequence

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
             keep: list[Scheduler] | None = None) -> dict[str, float]:  # fmt: skip
    """Fill the cluster (untimed), then time ``decisions`` starts in steady state (``keep`` gets the scheduler)."""
    sched = cluster(nodes, SchedulerConfig(policy=policy, default_time_s=3600, shards_per_gpu=8))
    if keep is not None:
        keep.append(sched)
    rng = random.Random(seed)
    menu = workload(nodes, seed, stream)
    weights = [w for w, _ in menu]
    reqs = [r for _, r in menu]
    # arrivals: one per simulated second while the backlog is short; run times sized to keep most GPUs busy
    mean_run = nodes * 8 * 0.85 / 2.4
    limited: dict[tuple[int, int], JobRequest] = {}
    ends: list[tuple[float, int]] = []
    now = 0.0
    started = 0
    busy = 0.0
    timed = False
    target_fill = int(nodes * 8 * 0.8 / 2.4)
    passes = 0
    while not timed or started < decisions:
        now += 1.0
        if not timed and (len(sched.running) >= target_fill or now > 3 * mean_run):
            timed, started, busy, passes = True, 0, 0.0, 0
        req = rng.choices(reqs, weights)[0]
        run = mean_run * rng.uniform(0.3, 1.7)
        req = _with_limit(limited, req, int(run * 1.25) + 60)
        t0 = time.perf_counter()
        while ends and ends[0][0] <= now:
            _, jid = heapq.heappop(ends)
            sched.finish(jid, now)
        for job in sched.pending[:8]:  # users give up on a device request that waits long
            if job.request.kind == "device" and now - job.submit_time > 300:
                sched.cancel(job.id, now)
                break
        if len(sched.pending) < backlog:
            sched.submit(req, now)
        got = sched.schedule(now)
        busy += time.perf_counter() - t0
        passes += 1
        for d in got:
            job = sched.jobs[d.job_id]
            heapq.heappush(ends, (now + min(run, (job.limit_s or 60) - 1), d.job_id))
        started += len(got)
    return {
        "nodes": nodes, "decisions": started, "seconds": busy, "per_s": started / busy, "us": busy / started * 1e6,
        "pending": len(sched.pending), "running": len(sched.running), "passes": passes,
    }  # fmt: skip


def _with_limit(cache: dict[tuple[int, int], JobRequest], req: JobRequest, limit: int) -> JobRequest:
    from dataclasses import replace

    bucket = limit // 600 * 600 + 600  # a few distinct limits, as users give round numbers
    key = (id(req), bucket)
    got = cache.get(key)
    if got is None:
        got = cache[key] = replace(req, time_limit_s=bucket)
    return got


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


def main(argv: Sequence[str] = ()) -> int:
    p = argparse.ArgumentParser(prog="python -m gputui.bench scheduler", description=__doc__)
    p.add_argument("--sizes", default="10,100,1000,10000", help="node counts, comma-separated")
    p.add_argument("--decisions", type=int, default=5000, help="timed decisions per size")
    p.add_argument("--policy", default="best-fit")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stream", choices=("old", "new"), default="new",
                   help="old: GPU jobs only, as before the resource model; new (default): also CPU-only, CPU- and "
                        "memory-bound, shard and thousandths jobs")  # fmt: skip
    p.add_argument("--share-cost", action="store_true", help="time a fractional placement against a whole GPU")
    args = p.parse_args(list(argv))
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.share_cost:
        print(f"policy {args.policy}: median microseconds per placement on a busy cluster (new stream)")
        print(f"{'nodes':>7} {'whole GPU':>10} {'shard':>10} {'milli':>10}  shard/whole  milli/whole  found (w/s/m)")
        for n in sizes:
            r = share_cost(n, args.seed, args.policy)
            w = r["whole_us"]
            print(f"{n:>7} {w:>10.1f} {r['shard_us']:>10.1f} {r['milli_us']:>10.1f}  "
                  f"{r['shard_us'] / w:>11.2f}  {r['milli_us'] / w:>11.2f}  "
                  f"{r['whole_found']:.0f}/{r['shard_found']:.0f}/{r['milli_found']:.0f}", flush=True)  # fmt: skip
        return 0
    print(f"policy {args.policy}, {args.stream} stream, {args.decisions} timed decisions per size, 8 GPUs per node")
    print(f"{'nodes':>7} {'GPUs':>7} {'decisions/s':>12} {'us/decision':>12} {'running':>8} {'pending':>8}")
    rows = []
    for n in sizes:
        r = run_size(n, args.decisions, args.seed, args.policy, stream=args.stream)
        rows.append(r)
        print(
            f"{n:>7} {n * 8:>7} {r['per_s']:>12,.0f} {r['us']:>12.1f} {r['running']:>8} {r['pending']:>8}", flush=True
        )
    by = {int(r["nodes"]): r for r in rows}
    if 100 in by and 10000 in by:
        print(f"cost ratio 10,000 / 100 nodes: {by[10000]['us'] / by[100]['us']:.2f}x")
    return 0
