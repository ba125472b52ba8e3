"""Scheduler benchmark: decisions per second on synthetic clusters of 10 to 10,000 nodes x 8 GPUs.

A quarter of the nodes are MIG-partitioned, an eighth run MPS on every GPU, the rest are plain. A mixed stream
(single-node counts, multi-node gangs, device requests, MIG instances, MPS shares; with ``--stream new``, the
default, also CPU- and memory-bound GPU jobs, CPU-only jobs, shards and thousandths of a GPU) arrives at a rate
that keeps the cluster busy, jobs end before their limits, and every submit, pass and finish is timed. Time is
simulated. ``--share-cost`` times one placement of a fractional share against one of a whole GPU on the same busy
cluster; ``--compare REF`` runs the same on commit REF and on this tree in turn and reports the ratio.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gputui.bench.scheduler.loop import _with_limit
from gputui.bench.scheduler.stream import NEW_MENU, cluster, run_size, share_cost, workload

__all__ = ["NEW_MENU", "_with_limit", "cluster", "main", "run_size", "share_cost", "workload"]


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
    p.add_argument("--compare", metavar="REF", help="run commit REF and this tree in turn and print the ratios")
    p.add_argument("--rounds", type=int, default=5, help="with --compare: runs of each side per size")
    p.add_argument("--instructions", action="store_true",
                   help="with --compare: also count instructions per decision under valgrind (callgrind)")  # fmt: skip
    args = p.parse_args(list(argv))
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        p.error(f"--sizes: not a comma-separated list of node counts: {args.sizes!r}")
    if min(sizes) < 1 or args.decisions < 1 or args.rounds < 1:
        p.error("--sizes, --decisions and --rounds take positive numbers")
    if args.compare:
        from gputui.bench.scheduler.compare import CompareError, compare

        try:
            return compare(args.compare, sizes, args.decisions, args.seed, args.policy, args.stream, args.rounds,
                           args.instructions)  # fmt: skip
        except CompareError as e:
            print(f"gputui.bench scheduler: {e}", file=sys.stderr)
            return 2
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
    print(f"policy {args.policy}, {args.stream} stream, {args.decisions} timed decisions per size, 8 GPUs per node; "
          "CPU: this thread's CPU time, wall: elapsed (it includes waiting for a core)")  # fmt: skip
    print(f"{'nodes':>7} {'GPUs':>7} {'decisions/s':>12} {'us/decision':>12} {'wall us':>8} {'running':>8}", end="")
    print(f" {'pending':>8}")
    rows = []
    for n in sizes:
        r = run_size(n, args.decisions, args.seed, args.policy, stream=args.stream)
        rows.append(r)
        print(f"{n:>7} {n * 8:>7} {1e6 / r['cpu_us']:>12,.0f} {r['cpu_us']:>12.1f} {r['us']:>8.1f} {r['running']:>8} "
              f"{r['pending']:>8}", flush=True)  # fmt: skip
    by = {int(r["nodes"]): r for r in rows}
    if 100 in by and 10000 in by:
        print(f"cost ratio 10,000 / 100 nodes: {by[10000]['cpu_us'] / by[100]['cpu_us']:.2f}x CPU time, "
              f"{by[10000]['us'] / by[100]['us']:.2f}x wall")  # fmt: skip
    return 0
