"""`python -m gputui.bench fgd [--data DIR] [--workers N] [--quick]`: FGD's benchmark reproduced, and its speed.

1. Speed of one run: one seed (42) of the default trace with ``fgd``, CPU seconds, against the same run where every
   node is scored for every pod (no score index), interleaved, on the first 3,000 arrivals.
2. The whole matrix (4 traces x 6 policies x 10 seeds at 130 %) on ``--workers`` processes, wall seconds, and
   every deterministic policy's per-seed value against the figures FGD's repository publishes
   (fixtures/simulate/fgd_published_130.csv; Random is compared on its mean only: it cannot be reproduced bit for
   bit). Exit 1 if a value is off by more than 0.05.

The openb files are read from ``--data`` (default: $GPUTUI_OPENB, else ../shared/data/openb, else
fixtures/simulate, which has the default trace only).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import time
from pathlib import Path

from gputui.core.simulate.arrivals import arrivals
from gputui.core.simulate.benchmark import BASELINES, make_policy
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.matrix import run_matrix, tasks_for
from gputui.core.simulate.workload import read_nodes, read_pods
from gputui.resources import bundled_path

TRACES = ("default", "cpu050", "gpushare40", "multigpu20")
NODES = "openb_node_list_gpu_node.csv"


def data_dir(given: str | None) -> Path:
    for cand in (given, os.environ.get("GPUTUI_OPENB"), "../shared/data/openb"):
        if cand and (Path(cand) / NODES).is_file():
            return Path(cand)
    return bundled_path("fixtures/simulate")


def published() -> dict[tuple[str, str, int], float]:
    path = bundled_path("fixtures/simulate/fgd_published_130.csv")
    with path.open() as f:
        return {(r["trace"], r["policy"], int(r["seed"])): float(r["alloc_130"]) for r in csv.DictReader(f)}


def _one_run(data: Path, scan: bool, limit: int) -> float:
    from gputui.core.scheduler.policies.frag import Fragmenter, typical_shapes

    pods = read_pods(data / "openb_pod_list_default.csv")
    nodes = read_nodes(data / NODES)
    t0 = time.process_time()
    frag = Fragmenter(typical_shapes([p.shape for p in pods]))
    arr = arrivals(pods, nodes, 42, 130)
    engine = Engine(arr.nodes, make_policy("fgd", frag), frag, arr.rng.intn)
    for pod in arr.pods[:limit]:
        got = engine.choose_by_scan(pod) if scan else engine.choose(pod)
        if got is not None:
            engine.commit(got[0], pod, got[1])
    return time.process_time() - t0


def speed(data: Path) -> None:
    idx, scan = [], []
    for _ in range(3):
        idx.append(_one_run(data, False, 3000))
        scan.append(_one_run(data, True, 3000))
    i, s = statistics.median(idx), statistics.median(scan)
    full = statistics.median(_one_run(data, False, 10**9) for _ in range(3))
    print(f"first 3000 arrivals, fgd, seed 42: indexed {i:.2f} s, every node scored {s:.2f} s, ratio {s / i:.1f}x")
    print(f"one seed of default with fgd (all arrivals): {full:.2f} CPU s (target <= 2 s)")


def matrix(data: Path, workers: int, traces: tuple[str, ...], policies: tuple[str, ...] = BASELINES) -> int:
    pub = published()
    files = [str(data / f"openb_pod_list_{t}.csv") for t in traces if (data / f"openb_pod_list_{t}.csv").is_file()]
    seeds = list(range(42, 52))
    t0 = time.perf_counter()
    sums = run_matrix(tasks_for(files, str(data / NODES), policies, seeds, 130), workers)
    wall = time.perf_counter() - t0
    bad = 0
    print(f"{'trace':<12}{'policy':<12}{'mean':>7}{'published':>11}{'seeds off':>11}")
    for s in sums:
        ref = [pub[(s.trace, s.policy, seed)] for seed in seeds if (s.trace, s.policy, seed) in pub]
        ref_mean = round(statistics.fmean(ref), 2) if ref else None
        off: int | str = "-" if not ref else 0
        if ref and s.policy != "random":
            off = sum(
                1 for seed, r in s.runs.items() if abs((r.value or 0) - pub.get((s.trace, s.policy, seed), 0)) > 0.05
            )
        bad += off if isinstance(off, int) else 0
        print(f"{s.trace:<12}{s.policy:<12}{s.mean:>7.2f}{ref_mean if ref_mean is not None else '-':>11}{off:>11}")
    runs = sum(len(s.runs) for s in sums)
    cpu = sum(r.cpu_s for s in sums for r in s.runs.values())
    print(
        f"{runs} runs on {workers or 'all'} workers: {wall:.1f} s wall (target <= 180 s), {cpu:.0f} CPU s in all "
        f"(on {workers or 'all'} idle cores: about {cpu / max(1, workers):.0f} s)"
    )
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench fgd")
    ap.add_argument("--data", help="folder with the openb CSV files")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="the speed check and the default trace only")
    args = ap.parse_args(argv)
    data = data_dir(args.data)
    print(f"openb data: {data}")
    speed(data)
    traces = TRACES[:1] if args.quick else TRACES
    bad = matrix(data, args.workers, traces)
    print("gputui's own policy:")
    matrix(data, args.workers, traces, ("fgd-cpu",))
    return bad
