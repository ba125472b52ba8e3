"""`gputui simulate --jobs SOURCE`: what would have happened to real jobs under each policy (table, JSON, plot)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gputui.core.errors import GputuiError
from gputui.core.plain_text import sanitise
from gputui.core.simulate.replay import ReplayResult


def _cluster(args: argparse.Namespace, own):  # type: ignore[no-untyped-def]
    from gputui.cli.simulate.sources import synthetic_nodes
    from gputui.core.simulate.workload import read_nodes

    if args.nodes:
        return read_nodes(args.nodes), sanitise(str(args.nodes))
    if args.synthetic:
        return synthetic_nodes(args.synthetic), "synthetic " + " ".join(sanitise(s) for s in args.synthetic)
    if own:
        return own, "the recording's nodes"
    raise GputuiError("--nodes or --synthetic: the cluster to replay the jobs on is required")


def run_replay(args: argparse.Namespace) -> int:
    from gputui.cli.simulate.output import plot_available, progress
    from gputui.cli.simulate.sources import load
    from gputui.core.simulate.benchmark import policy_names
    from gputui.core.simulate.replay import replay

    if args.plot:
        plot_available()
    source = load(args.jobs)
    nodes, cluster = _cluster(args, source.nodes)
    policies = args.policy or policy_names()
    t0 = time.perf_counter()
    results = []
    with progress(len(policies)) as advance:
        for p in policies:
            results.append(replay(source.pods, nodes, p))
            advance(p)
    elapsed = time.perf_counter() - t0
    skipped = {k: v for k, v in sorted(source.skipped.items())}
    if args.json:
        print(json.dumps({"jobs": sanitise(str(args.jobs)), "source": source.kind, "cluster": cluster,
                          "skipped": skipped, "results": [r.as_json() for r in results]}, indent=2))  # fmt: skip
    else:
        print_replay(results, source.kind, cluster, skipped, elapsed)
    if args.chart or args.plot:
        print_timeline(results, file=sys.stderr if args.json else sys.stdout)
    if args.plot:
        write_timeline_plot(results, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def print_replay(results: list[ReplayResult], kind: str, cluster: str, skipped: dict[str, int],
                 elapsed: float) -> None:  # fmt: skip
    span_h = results[0].span_s / 3600 if results else 0
    jobs = results[0].jobs if results else 0
    table = Table(title=Text(f"replay of {jobs} jobs ({kind}) over {span_h:.0f} h on {cluster}"), min_width=60)
    for col in ("policy", "started", "never", "wait s", "p95 s", "GPU-h used", "GPU-h idle", "frag %"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    for r in results:
        table.add_row(Text(sanitise(r.policy)), str(r.started), str(r.never_started), f"{r.mean_wait_s:.0f}",
                      f"{r.p95_wait_s:.0f}", f"{r.gpu_hours_allocated:.0f}", f"{r.gpu_hours_idle:.0f}",
                      f"{r.mean_frag_pct:.2f}")  # fmt: skip
    console = Console(file=sys.stdout, highlight=False)
    console.print(table)
    console.print(Text("never: jobs that never started; wait: mean and 95th percentile queue wait of the started jobs"))
    if skipped:
        parts = ", ".join(f"{n} {sanitise(why)}" for why, n in skipped.items())
        console.print(Text(f"left out (the replay engine holds whole GPUs and shares of one GPU): {parts}"))
    console.print(Text(f"{len(results)} replays in {elapsed:.1f} s"))


def _series(results: list[ReplayResult], which: int) -> dict[str, dict[int, float]]:
    """Per policy, per cent of the timeline -> the timeline's value ``which`` (1: allocated %, 2: fragmented %)."""
    return {r.policy: {p[0] * 100 // max(1, r.span_s): p[which] for p in r.timeline} for r in results}


def print_timeline(results: list[ReplayResult], file: IO[str] | None = None) -> None:
    from gputui.cli.simulate.output import chart_lines

    out = file or sys.stdout
    span = results[0].span_s if results else 0
    length = f"{span / 3600:.1f} h" if span >= 3600 else f"{span / 60:.0f} min" if span >= 60 else f"{span} s"
    for which, what in ((1, "GPU allocated"), (2, "GPU fragmented")):
        print(f"\n{what} (%) over the replay", file=out)
        lines = chart_lines(_series(results, which), x_max=100)
        if len(lines) >= 2:
            lines[-2] = lines[-2].replace("arrived GPU demand (%)", f"% of the timeline ({length})")
        for line in lines:
            print(line, file=out)


def write_timeline_plot(results: list[ReplayResult], path: str) -> None:
    """GPU allocated (top) and fragmented (bottom) over the replay's timeline, one line per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gputui.cli.simulate.output import save_plot

    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for r in results:
        hours = [p[0] / 3600 for p in r.timeline]
        axes[0].plot(hours, [p[1] for p in r.timeline], label=r.policy, linewidth=1.1)
        axes[1].plot(hours, [p[2] for p in r.timeline], label=r.policy, linewidth=1.1)
    axes[0].set_ylabel("GPU allocated (%)")
    axes[1].set_ylabel("GPU fragmented (%)")
    axes[1].set_xlabel("hours from the start of the replay")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    save_plot(fig, path)
