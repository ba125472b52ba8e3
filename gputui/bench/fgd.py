"""`python -m gputui.bench fgd [--data DIR] [--workers N] [--quick] [--traces A,B] [--cache FILE]`: FGD's benchmark
reproduced, gputui's policies on it, and its speed.

1. Speed of one run: one seed (42) of the default trace with ``fgd``, CPU seconds, against the same run where every
   node is scored for every pod (no score index), interleaved, on the first 3,000 arrivals.
2. The whole matrix (the 17 published openb workloads x 6 policies, and ``fgd-cpu``, x 10 seeds at 130 %) on
   ``--workers`` processes, and every deterministic policy's per-seed value against the figures FGD's repository
   publishes (fixtures/simulate/fgd_published_130.csv; Random is compared on its mean only: it cannot be
   reproduced bit for bit). Exit 1 if a value is off by more than 0.05.
3. ``fgd-auto`` leave-one-family-out: each family's workloads under the gate fitted on the other families, its
   mean against FGD's and its CPU time per run against FGD's. Exit 1 if a held-out mean is below FGD's, or if the
   gate fitted on all seventeen is not the one ``fgd_auto.GATE`` ships.

The openb files are read from ``--data`` (default: $GPUTUI_OPENB, else ../shared/data/openb, else
fixtures/simulate, which has two of the seventeen pod lists). ``--cache`` keeps per-seed results in a JSON file so
that a second run only runs what is missing.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import time
from pathlib import Path

from gputui.core.simulate.arrivals import arrivals
from gputui.core.simulate.benchmark import BASELINES, SeedRun, make_policy
from gputui.core.simulate.engine import Engine
from gputui.core.simulate.matrix import Task, run_matrix, trace_name
from gputui.core.simulate.workload import read_nodes, read_pods
from gputui.resources import bundled_path

#: every openb workload with a published result (fixtures/simulate/fgd_published_130.csv), by family
TRACES = ("default", "cpu050", "cpu100", "cpu200", "cpu250", "gpushare40", "gpushare60", "gpushare80", "gpushare100",
          "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33", "multigpu20", "multigpu30", "multigpu40",
          "multigpu50")  # fmt: skip
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
    from gputui.core.scheduler.policies.frag import Fragmenter
    from gputui.core.simulate.workload import expected_workload

    pods = read_pods(data / "openb_pod_list_default.csv")
    nodes = read_nodes(data / NODES)
    t0 = time.process_time()
    frag = Fragmenter(expected_workload(pods))
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


Result = dict[tuple[str, str], dict[int, tuple[float, float]]]  # (trace, policy) -> seed -> (value, CPU s)


def _load_cache(path: str | None) -> dict[str, list[float]]:
    if not path or not Path(path).is_file():
        return {}
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def results(data: Path, workers: int, traces: tuple[str, ...], policies: tuple[str, ...],
            cache: str | None = None) -> tuple[Result, float]:  # fmt: skip
    """Every (trace, policy, seed 42-51) at 130 %: (value, CPU s); runs found in ``cache`` (a JSON file) are not run
    again, and new ones are added to it. Also the wall seconds the new runs took."""
    seeds = list(range(42, 52))
    known = _load_cache(cache)
    out: Result = {}
    todo = []
    for t in traces:
        path = data / f"openb_pod_list_{t}.csv"
        if not path.is_file():
            continue
        for pol in policies:
            out[(t, pol)] = {}
            for seed in seeds:
                hit = known.get(f"{t}|{pol}|{seed}")
                if hit is not None:
                    out[(t, pol)][seed] = (hit[0], hit[1])
                else:
                    todo.append(Task(str(path), str(data / NODES), pol, seed, 130))
    t0 = time.perf_counter()

    def done(task: Task, run: SeedRun) -> None:
        value = run.value if run.value is not None else float("nan")
        out[(trace_name(task.trace), task.policy)][task.seed] = (value, run.cpu_s)
        known[f"{trace_name(task.trace)}|{task.policy}|{task.seed}"] = [value, run.cpu_s]

    if todo:
        run_matrix(todo, workers, done)
        if cache:
            Path(cache).write_text(json.dumps(known))
    return out, time.perf_counter() - t0


def _mean(runs: dict[int, tuple[float, float]], i: int = 0) -> float:
    return statistics.fmean(r[i] for r in runs.values()) if runs else float("nan")


def matrix(res: Result, wall: float, workers: int, policies: tuple[str, ...] = BASELINES) -> int:
    """The reproduction table: each policy's mean and how many seeds differ from the published figure."""
    pub = published()
    bad = 0
    print(f"{'trace':<12}{'policy':<12}{'mean':>7}{'published':>11}{'seeds off':>11}")
    for (trace, policy), runs in res.items():
        if policy not in policies:
            continue
        ref = [pub[(trace, policy, seed)] for seed in runs if (trace, policy, seed) in pub]
        ref_mean = round(statistics.fmean(ref), 2) if ref else None
        off: int | str = "-" if not ref else 0
        if ref and policy != "random":
            off = sum(1 for seed, (v, _) in runs.items() if abs(v - pub.get((trace, policy, seed), 0)) > 0.05)
        bad += off if isinstance(off, int) else 0
        print(f"{trace:<12}{policy:<12}{_mean(runs):>7.2f}{ref_mean if ref_mean is not None else '-':>11}{off:>11}")
    n = sum(len(r) for (_, p), r in res.items() if p in policies)
    cpu = sum(c for (_, p), r in res.items() if p in policies for _, c in r.values())
    print(f"{n} runs ({cpu:.0f} CPU s; the new ones took {wall:.1f} s wall on {workers or 'all'} workers)")
    return 1 if bad else 0


def family(trace: str) -> str:
    """default, cpu, gpushare, gpuspec, multigpu: the workload's name without its figure."""
    return trace.rstrip("0123456789")


def held_out(data: Path, res: Result, traces: tuple[str, ...]) -> int:
    """fgd-auto scored leave-one-family-out: for each family, the gate fitted on the other families decides, per
    held-out workload, whether it runs fgd-cpu or FGD (fgd-auto is exactly one of the two, so its held-out mean is
    that policy's). Also the gate fitted on all of them, which must be :data:`fgd_auto.GATE`. Exit 1 where a
    held-out score is below FGD's or the fit is not the shipped gate."""
    from gputui.core.scheduler.policies import fgd_auto
    from gputui.core.simulate.workload import expected_workload

    rows = []
    for t in traces:
        if (t, "fgd") not in res or (t, fgd_auto.INNER) not in res:
            continue
        b_runs, c_runs = res[(t, "fgd")], res[(t, fgd_auto.INNER)]
        feats = fgd_auto.features(expected_workload(read_pods(data / f"openb_pod_list_{t}.csv")))
        rows.append((t, feats, _mean(b_runs), _mean(c_runs), _mean(b_runs, 1), _mean(c_runs, 1)))
    bad = 0
    print("fgd-auto, leave-one-family-out (gate fitted on the other families):")
    print(f"{'trace':<12}{'CPU/GPU':>9}{'spec':>7}{'fgd':>7}{fgd_auto.INNER:>9}{'held-out':>10}{'- fgd':>7}{'gate':>9}"
          f"{'CPU x fgd':>11}")  # fmt: skip
    for t, f, base, cpu, base_s, cpu_s in rows:
        others = [(g, cpu_m - base_m) for u, g, base_m, cpu_m, *_ in rows if family(u) != family(t)]
        gate = fgd_auto.fit_gate(others)
        on = fgd_auto.gated_on(f, gate)
        score, secs = (cpu, cpu_s) if on else (base, base_s)
        bad += round(score, 2) < round(base, 2)
        print(f"{t:<12}{f.cpu_per_gpu:>9.0f}{f.spec_share:>7.3f}{base:>7.2f}{cpu:>9.2f}{score:>10.2f}"
              f"{score - base:>+7.2f}{fgd_auto.INNER if on else 'fgd':>9}{secs / base_s:>10.2f}x")  # fmt: skip
    fit = fgd_auto.fit_gate([(f, cpu - base) for _, f, base, cpu, *_ in rows])
    shipped = fgd_auto.GATE
    same = abs(fit.cpu_per_gpu - shipped.cpu_per_gpu) < 0.05 and abs(fit.spec_share - shipped.spec_share) < 5e-5
    print(
        f"gate fitted on all: CPU/GPU <= {fit.cpu_per_gpu:.1f}, spec share <= {fit.spec_share:.4f}"
        f" ({'the shipped gate' if same else f'shipped: {shipped}'})"
    )
    return 1 if bad or (len(rows) == len(TRACES) and not same) else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench fgd")
    ap.add_argument("--data", help="folder with the openb CSV files")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="the speed check and the default trace only")
    ap.add_argument("--traces", help="comma-separated workloads (default: all seventeen)")
    ap.add_argument("--cache", help="a JSON file of per-seed results: runs found there are not run again")
    ap.add_argument("--no-speed", action="store_true", help="leave out the speed check")
    args = ap.parse_args(argv)
    data = data_dir(args.data)
    print(f"openb data: {data}")
    traces = TRACES[:1] if args.quick else TRACES
    if args.traces:
        traces = tuple(t.strip() for t in args.traces.split(",") if t.strip())
        unknown = [t for t in traces if t not in TRACES]
        if unknown:
            print(f"python -m gputui.bench fgd: unknown workload {unknown[0]!r} (choose from {', '.join(TRACES)})")
            return 2
    if not args.no_speed:
        speed(data)
    res, wall = results(data, args.workers, traces, (*BASELINES, "fgd-cpu", "fgd-idle"), args.cache)
    bad = matrix(res, wall, args.workers)
    print("gputui's own policies:")
    matrix(res, 0.0, args.workers, ("fgd-cpu", "fgd-idle"))
    return bad | held_out(data, res, traces)
