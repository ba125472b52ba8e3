"""The scheduler benchmark's timed loop, written against the scheduler's oldest API so that one copy drives this
tree and an older checkout alike (``--compare``): it imports nothing of gputui, and the caller hands it the
scheduler and the menu of requests.

Arrivals come one per simulated second while the backlog is short, run times are sized to keep most GPUs busy,
and every finish, cancel, submit and pass is timed once the cluster is filled, in wall time and in this thread's
CPU time (on a shared machine the wall time includes the moments the process waited for a core; CPU time does
not). Run as a script (by path, with the other checkout first on ``sys.path``) it prints one JSON line.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any


def _with_limit(cache: dict[tuple[int, int], Any], req: Any, limit: int) -> Any:
    bucket = limit // 600 * 600 + 600  # a few distinct limits, as users give round numbers
    key = (id(req), bucket)
    got = cache.get(key)
    if got is None:
        got = cache[key] = replace(req, time_limit_s=bucket)
    return got


def drive(sched: Any, menu: list[tuple[float, Any]], nodes: int, decisions: int, seed: int, backlog: int = 32,
          digest: bool = False, counted: bool = False) -> dict[str, Any]:  # fmt: skip
    """Fill the cluster (untimed), then time ``decisions`` starts in steady state.

    ``digest``: also hash every decision (job, time, allocation) and the pending jobs' reasons after each pass,
    so that two checkouts can be shown to decide alike. ``counted``: run each timed step through
    ``sys.call_tracing``, which callgrind's ``--toggle-collect=_PyEval_CallTracing`` counts and nothing else does.
    """
    rng = random.Random(seed)
    weights = [w for w, _ in menu]
    reqs = [r for _, r in menu]
    mean_run = nodes * 8 * 0.85 / 2.4
    limited: dict[tuple[int, int], Any] = {}
    ends: list[tuple[float, int]] = []
    decided, reasons = hashlib.sha256(), hashlib.sha256()
    now, started, busy, cpu, passes, timed, total = 0.0, 0, 0.0, 0.0, 0, False, 0
    target_fill = int(nodes * 8 * 0.8 / 2.4)
    box: dict[str, Any] = {}

    def step() -> None:
        while ends and ends[0][0] <= now:
            _, jid = heapq.heappop(ends)
            sched.finish(jid, now)
        for job in sched.pending[:8]:  # users give up on a device request that waits long
            if job.request.kind == "device" and now - job.submit_time > 300:
                sched.cancel(job.id, now)
                break
        if len(sched.pending) < backlog:
            sched.submit(box["req"], now)
        box["got"] = sched.schedule(now)

    run_step: Callable[[], Any] = (lambda: sys.call_tracing(step, ())) if counted else step
    while not timed or started < decisions:
        now += 1.0
        if not timed and (len(sched.running) >= target_fill or now > 3 * mean_run):
            timed, started, busy, cpu, passes = True, 0, 0.0, 0.0, 0
        req = rng.choices(reqs, weights)[0]
        run = mean_run * rng.uniform(0.3, 1.7)
        box["req"] = _with_limit(limited, req, int(run * 1.25) + 60)
        t0, c0 = time.perf_counter(), time.thread_time()
        if timed:
            run_step()
        else:
            step()
        busy += time.perf_counter() - t0
        cpu += time.thread_time() - c0
        passes += 1
        got = box["got"]
        for d in got:
            job = sched.jobs[d.job_id]
            heapq.heappush(ends, (now + min(run, (job.limit_s or 60) - 1), d.job_id))
            if digest:
                decided.update(repr((d.job_id, now, job.allocation)).encode())
        if digest:
            reasons.update(repr([(j.id, j.reason) for j in sched.pending]).encode())
        started += len(got)
        total += len(got)
    return {
        "nodes": nodes, "decisions": started, "seconds": busy, "per_s": started / busy, "us": busy / started * 1e6,
        "cpu_us": cpu / started * 1e6,  # this thread's CPU time: what other processes take of the CPU is not in it
        "pending": len(sched.pending), "running": len(sched.running), "passes": passes, "all_decisions": total,
        "digest": decided.hexdigest()[:16] if digest else "", "reasons": reasons.hexdigest()[:16] if digest else "",
    }  # fmt: skip


def _child(argv: list[str]) -> int:
    """``loop.py NODES DECISIONS SEED POLICY STREAM [counted]``: one run on the gputui first on ``sys.path``."""
    import inspect

    from gputui.bench import scheduler as bench  # the other checkout's, or this one's
    from gputui.core.scheduler.config import SchedulerConfig

    nodes, decisions, seed = int(argv[0]), int(argv[1]), int(argv[2])
    policy, stream, counted = argv[3], argv[4], argv[5:] == ["counted"]
    fields = getattr(SchedulerConfig, "__dataclass_fields__", {})
    extra: dict[str, Any] = {"shards_per_gpu": 8} if "shards_per_gpu" in fields else {}
    sched = bench.cluster(nodes, SchedulerConfig(policy=policy, default_time_s=3600, **extra))
    if "stream" in inspect.signature(bench.workload).parameters:
        menu = bench.workload(nodes, seed, stream)
    elif stream == "old":
        menu = bench.workload(nodes, seed)
    else:
        print(json.dumps({"error": f"its benchmark has no {stream!r} stream (try --stream old)"}))
        return 2
    print(json.dumps(drive(sched, menu, nodes, decisions, seed, digest=True, counted=counted)))
    return 0


if __name__ == "__main__":
    raise SystemExit(_child(sys.argv[1:]))
