"""Time of one poll of a Slurm cluster (sinfo + squeue, parsed into a snapshot) and of a job-list tick, with the
job cache (only changed jobs read again, see gputui/slurm/jobs/cache.py) against full reads, interleaved.

python -m gputui.bench slurm_poll [--polls 30] [--mode auto|json|text]

Runs against the cluster the client commands reach (SLURM_CONF); `python tests/support/slurm_lab.py start DIR`
starts a four-node test cluster on this machine, and `sbatch --wrap true` 1,000 times leaves 1,000 ended jobs
that Slurm keeps for MinJobAge (300 s). Most of a poll is the client commands themselves.
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
        pairs = []
        for cached in (True, False):
            source = SlurmSource(mode=args.mode, nvml=None)
            if not cached:
                source.reader.cache.from_jobs = 1 << 30  # every read a full one: the baseline
            jobs = SlurmJobs(source)
            jobs.tick(source.poll())
            pairs.append((source, jobs))
    except GputuiError as e:
        print(f"slurm_poll: {e}")
        return 1
    times: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    for _ in range(args.polls):
        for cached, (source, jobs) in zip((True, False), pairs, strict=True):
            t0 = time.perf_counter()
            snap = source.poll()
            t1 = time.perf_counter()
            jobs.tick(snap)
            jobs.list()
            times[cached][1].append(time.perf_counter() - t1)
            times[cached][0].append(t1 - t0)
    source, jobs = pairs[0]
    print(f"{source.description}: {len(snap.nodes)} nodes, {snap.gpu_count} GPUs, {len(jobs.list())} jobs, "
          f"mode {args.mode}, {args.polls} polls each, interleaved")  # fmt: skip
    for cached, label in ((True, "job cache"), (False, "full read")):
        polls, ticks = times[cached]
        print(f"{label}: poll median {statistics.median(polls) * 1e3:.1f} ms  max {max(polls) * 1e3:.1f} ms;  "
              f"tick median {statistics.median(ticks) * 1e3:.2f} ms")  # fmt: skip
    ratio = statistics.median(times[False][0]) / statistics.median(times[True][0])
    cache = source.reader.cache
    print(f"poll: full read / job cache = {ratio:.1f}x  ({cache.short_reads} short reads, {cache.full_reads} full)")
    return 0
