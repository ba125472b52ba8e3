"""Wall time of the whole `gputui snapshot` command on the demo recording, process start included.

python -m gputui.bench snapshot_cmd [--runs 20] [SOURCE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def _time(cmd: list[str], runs: int) -> list[float]:
    out = []
    env = {**os.environ, "COLUMNS": "160"}
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
        out.append(time.perf_counter() - t0)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench snapshot_cmd")
    ap.add_argument("source", nargs="?", default="demo")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args(argv)
    exe = shutil.which("gputui")
    base = [exe] if exe else [sys.executable, "-m", "gputui"]
    cases = {
        "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
        f"gputui snapshot {args.source}": [*base, "snapshot", args.source],
        f"gputui snapshot {args.source} --json": [*base, "snapshot", args.source, "--json"],
        f"gputui snapshot {args.source} --at +5m": [*base, "snapshot", args.source, "--at", "+5m"],
    }
    for label, cmd in cases.items():
        xs = sorted(_time(cmd, args.runs))
        median, low = statistics.median(xs) * 1000, xs[0] * 1000
        print(f"{label:45s} median {median:6.0f} ms   min {low:6.0f} ms   ({args.runs} runs)")
    return 0
