"""Time of one poll of a Slurm cluster (sinfo + squeue, parsed into a snapshot) and of a job-list tick.

python -m gputui.bench slurm_poll [--polls 30] [--mode auto|json|text]

Runs against the cluster the client commands reach (SLURM_CONF); `python tests/slurm_lab.py start DIR`
starts a four-node test cluster on this machine. Most of a poll is the two client commands themselves.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench slurm_poll")
    ap.add_argument("--polls", type=int, default=30)
    ap.add_argument("--mode", choices=("auto", "json", "text"), default="auto")
    args = ap.parse_args(argv)
    from gputui.core.errors import GputuiError
    from gputui.slurm import SlurmSource
    from gputui.slurm.backend import SlurmJobs

    try:
        source = SlurmSource(mode=args.mode, nvml=None)
        jobs = SlurmJobs(source)
        source.poll()
    except GputuiError as e:
        print(f"slurm_poll: {e}")
        return 1
    polls, ticks = [], []
    for _ in range(args.polls):
        t0 = time.perf_counter()
        snap = source.poll()
        t1 = time.perf_counter()
        jobs.tick(snap)
        jobs.list()
        ticks.append(time.perf_counter() - t1)
        polls.append(t1 - t0)
    gpus, listed = snap.gpu_count, len(jobs.list())
    print(f"{source.description}: {len(snap.nodes)} nodes, {gpus} GPUs, {listed} jobs, mode {args.mode}")
    print(f"poll   median {statistics.median(polls) * 1e3:.1f} ms  max {max(polls) * 1e3:.1f} ms")
    print(f"tick   median {statistics.median(ticks) * 1e3:.2f} ms  max {max(ticks) * 1e3:.2f} ms")
    return 0
