"""`gputui simulate`: FGD's benchmark on a trace (``--trace``), or a replay of real jobs (``--jobs``)."""

from __future__ import annotations

import argparse
import sys

from gputui.core.errors import GputuiError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="FGD's placement benchmark on a trace, or a replay of real jobs")
    p.add_argument("--trace", action="append", default=[], metavar="PODS.csv",
                   help="a pod list in Alibaba's openb format (repeat for several traces)")  # fmt: skip
    p.add_argument("--jobs", metavar="SOURCE",
                   help="replay jobs on their real timeline: a gputui job store (jobs.db), a gputui recording, or a "
                        "pod list with creation_time/deletion_time")  # fmt: skip
    p.add_argument(
        "--nodes",
        metavar="NODES.csv",
        help="the cluster: a node list in the openb format (required, except for a recording's replay)",
    )
    p.add_argument(
        "--synthetic",
        action="append",
        default=[],
        metavar="SPEC",
        help="for --jobs: a synthetic cluster instead, as gputui plan takes it, e.g. node[01-04]:8:A100",
    )
    p.add_argument("--policy", action="append", default=[], metavar="P",
                   help="a placement policy (repeat; default: all of them). fgd-auto, gputui's default: fgd-idle "
                        "where the workload looks like those it wins on, else exactly fgd; fgd-idle: fgd-cpu with "
                        "idle GPUs priced in its third term. fgd-cpu loses to fgd on CPU-bound (openb cpu200, cpu250) "
                        "and GPU-model-constrained (gpuspec20, gpuspec25, gpuspec33) workloads, fgd-idle on "
                        "cpu250")  # fmt: skip
    p.add_argument("--seeds", default="42-51", help="seeds of the arrival order: 42-51, 42,45 or 42 (default 42-51)")
    p.add_argument("--demand", type=int, default=130, help="arrived GPU demand in %% of the cluster (default 130)")
    p.add_argument("--workers", type=int, default=0, help="processes to use (default: one per CPU)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="write allocation and fragmentation against demand (PNG)")
    p.add_argument("--chart", action="store_true", help="print a terminal chart of allocation against demand")
    p.set_defaults(run=run)


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            if sep and lo:
                a, b = int(lo), int(hi)
                if b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise GputuiError(f"--seeds: expected 42-51, 42,45 or 42, got {text!r}") from None
    if not out:
        raise GputuiError("--seeds: no seed given")
    return out


def run(args: argparse.Namespace) -> int:
    from gputui.core.plain_text import sanitise
    from gputui.core.simulate.benchmark import policy_names

    known = policy_names()
    for p in args.policy:
        if p not in known:
            raise GputuiError(f"--policy: unknown policy {sanitise(p)!r} (choose from {', '.join(known)})")
    if args.demand <= 0 or args.demand > 1000:
        raise GputuiError(f"--demand: expected a per cent between 1 and 1000, got {args.demand}")
    if args.workers < 0:
        raise GputuiError(f"--workers: expected 0 (one per CPU) or more, got {args.workers}")
    if args.jobs:
        if args.trace:
            raise GputuiError("--jobs and --trace: give one of them")
        if args.nodes and args.synthetic:
            raise GputuiError("--nodes and --synthetic: give one cluster")
        from gputui.cli.simulate.replay import run_replay

        return run_replay(args)
    if not args.trace:
        raise GputuiError("--trace: give a pod list (or --jobs SOURCE for a replay)")
    if args.synthetic:
        raise GputuiError("--synthetic: only for a replay (--jobs); the benchmark runs on a node list (--nodes)")
    if not args.nodes:
        raise GputuiError("--nodes: the cluster's node list is required (e.g. openb_node_list_gpu_node.csv)")
    policies = args.policy or known
    seeds = parse_seeds(args.seeds)
    return _benchmark(args, policies, seeds)


def _benchmark(args: argparse.Namespace, policies: list[str], seeds: list[int]) -> int:
    import time

    from gputui.cli.simulate.output import print_chart, print_table, progress, write_plot
    from gputui.core.simulate.matrix import run_matrix, tasks_for

    if args.plot:
        from gputui.cli.simulate.output import plot_available

        plot_available()  # fails before the run, not after it
    tasks = tasks_for(args.trace, args.nodes, policies, seeds, args.demand)
    t0 = time.perf_counter()
    with progress(len(tasks)) as advance:
        summaries = run_matrix(tasks, args.workers, lambda task, run: advance(f"{task.policy} seed {task.seed}"))
    elapsed = time.perf_counter() - t0
    bounds = _bounds(args.trace, args.nodes, seeds, args.demand)
    if args.json:
        import json

        results = []
        for s in summaries:
            b = bounds.get(s.trace)
            gap = None if b is None or s.mean is None else round(b - s.mean, 2)
            results.append({**s.as_json(), "bound": b, "gap": gap})
        print(json.dumps({"results": results}, indent=2))
    else:
        print_table(summaries, args.demand, elapsed, bounds=bounds)
    if args.chart or args.plot:
        print_chart(summaries, file=sys.stderr if args.json else sys.stdout)
    if args.plot:
        write_plot(summaries, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _bounds(traces: list[str], nodes: str, seeds: list[int], demand: int) -> dict[str, float | None]:
    """Per trace, the LP upper bound on the allocation ratio (``core.simulate.bound``); None without HiGHS."""
    from gputui.core.simulate import bound
    from gputui.core.simulate.matrix import _load_nodes, _load_pods, trace_name

    if not bound.available():
        return {}
    node_list = _load_nodes(nodes)
    return {trace_name(t): bound.trace_bound(_load_pods(t), node_list, seeds, demand) for t in traces}
