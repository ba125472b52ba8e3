"""`gputui simulate --jobs SOURCE`: what would have happened to real jobs under each policy (table or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gputui.core.plain_text import sanitise


def run_replay(args: argparse.Namespace) -> int:
    from gputui.cli.simulate_out import progress
    from gputui.core.simulate.benchmark import policy_names
    from gputui.core.simulate.replay import replay
    from gputui.core.simulate.workload import read_nodes, read_pods

    pods = read_pods(args.jobs, timed=True)
    nodes = read_nodes(args.nodes)
    policies = args.policy or policy_names()
    t0 = time.perf_counter()
    results = []
    with progress(len(policies)) as advance:
        for p in policies:
            results.append(replay(pods, nodes, p))
            advance(p)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"jobs": sanitise(str(args.jobs)), "results": [r.as_json() for r in results]}, indent=2))
        return 0
    span_h = results[0].span_s / 3600 if results else 0
    table = Table(title=Text(f"replay of {results[0].jobs if results else 0} jobs over {span_h:.0f} h"), min_width=60)
    for col in ("policy", "started", "never", "wait s", "p95 s", "GPU-h used", "GPU-h idle", "frag %"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    for r in results:
        table.add_row(Text(sanitise(r.policy)), str(r.started), str(r.never_started), f"{r.mean_wait_s:.0f}",
                      f"{r.p95_wait_s:.0f}", f"{r.gpu_hours_allocated:.0f}", f"{r.gpu_hours_idle:.0f}",
                      f"{r.mean_frag_pct:.2f}")  # fmt: skip
    console = Console(file=sys.stdout, highlight=False)
    console.print(table)
    console.print(Text("never: jobs that never started; wait: mean and 95th percentile queue wait of the started jobs"))
    console.print(Text(f"{len(results)} replays in {elapsed:.1f} s"))
    return 0
