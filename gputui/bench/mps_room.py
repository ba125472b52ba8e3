"""MPS share placement on a cluster whose MPS GPUs are nearly full: the case the "mpsroom" index is for.

1,000 nodes x 8 MPS GPUs, every GPU but those of the last node carrying a 90 % share; then one 20 % share is placed
(found, not applied), with Slurm's rule that shares sum to at most 100 % (``mps_percent_cap=100``, as the Slurm
what-if uses) and without a cap. Only interfaces older than the index are used, so the same file times an older
checkout: ``PYTHONPATH=OLD_CHECKOUT python gputui/bench/mps_room.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from gputui.core.scheduler import ledger
from gputui.core.scheduler.allocation import Allocation, GpuGrant, NodeGrant
from gputui.core.scheduler.build import GpuSpec, NodeSpec, state_from_specs
from gputui.core.scheduler.config import SchedulerConfig
from gputui.core.scheduler.policies import get_policy

try:
    from gputui.core.scheduler.parse.options import parse_options
    from gputui.core.scheduler.place.finder import find_allocation
    from gputui.core.scheduler.place.placement import prepare
except ImportError:  # a checkout from before the scheduler's place/ and parse/ packages
    from gputui.core.scheduler.finder import find_allocation  # type: ignore[import-not-found,no-redef]
    from gputui.core.scheduler.options import parse_options  # type: ignore[import-not-found,no-redef]
    from gputui.core.scheduler.placement import prepare  # type: ignore[import-not-found,no-redef]


def run(nodes: int, cap: int | None, rounds: int) -> tuple[float, str | None]:
    """(median microseconds per placement, the node it chose)."""
    state = state_from_specs([NodeSpec(f"n{i:05d}", (GpuSpec(mps=True),) * 8) for i in range(nodes)],
                             SchedulerConfig(mps_percent_cap=cap))  # fmt: skip
    job = 0
    for node in state.nodes[:-1]:
        for g in node.gpus:
            job += 1
            ledger.apply(state, Allocation((NodeGrant(node.name, (GpuGrant(g.index, g.uuid, mps_percent=90),)),)), job)
    policy = get_policy("best-fit")
    ask = prepare(state, parse_options("--gres=mps:20"))
    times = []
    alloc = None
    for _ in range(rounds):
        t0 = time.perf_counter()
        alloc = find_allocation(state, ask, policy)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6, alloc.nodes[0].node if alloc else None


def main(argv: Sequence[str] = ()) -> int:
    p = argparse.ArgumentParser(prog="python -m gputui.bench mps_room", description=__doc__)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=200)
    args = p.parse_args(list(argv))
    for cap in (100, None):
        us, where = run(args.nodes, cap, args.rounds)
        print(f"cap {cap if cap is not None else 'none':>4}: {us:9.1f} us per 20 % share, placed on {where}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
