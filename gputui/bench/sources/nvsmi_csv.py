"""nvidia-smi `--query-gpu` CSV import benchmark: load time and peak memory against the file's size.

    python -m gputui.bench nvsmi_csv [--mb 100] [--gpus 8] [--keep FILE] [--against DIR] [--rounds 3]

Writes a `--query-gpu=... --format=csv -l 1` log of about ``--mb`` MB (one host, ``--gpus`` GPUs, values that
move every poll as a busy host's do), then loads it in a fresh interpreter and reports the CPU time, the
rows per second and the peak resident memory as a multiple of the file size. With ``--against DIR`` (another
checkout of gputui, e.g. main) both are loaded in turn, ``--rounds`` times interleaved, and the best CPU times
are compared as a ratio. Synthetic values in nvidia-smi's own cell formats; nothing in it was measured on a GPU.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HEADER = (
    "timestamp, name, pci.bus_id, uuid, index, memory.total [MiB], memory.used [MiB], utilization.gpu [%], "
    "utilization.memory [%], temperature.gpu, power.draw [W], enforced.power.limit [W], fan.speed [%], pstate, "
    "clocks.current.graphics [MHz], clocks.current.sm [MHz], clocks.current.memory [MHz], compute_mode, "
    "persistence_mode, mig.mode.current\n"
)

_CHILD = """
import resource, sys, time
from gputui.sources.nvsmi import load_nvsmi_log
t0 = time.process_time()
log = load_nvsmi_log(sys.argv[1])
took = time.process_time() - t0
rows = sum(f.gpu_count for f in log.frames)
print(len(log.frames), rows, took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write_log(path: Path, mb: float, gpus: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    polls = 0
    with open(path, "w") as f:
        f.write(HEADER)
        while f.tell() < mb * 1e6:
            s = polls
            for i in range(gpus):
                util = rng.randint(0, 100)
                f.write(
                    f"2026/07/14 {s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{rng.randint(0, 999):03d}, "
                    f"NVIDIA H100 80GB HBM3, 00000000:{i + 1:02X}:00.0, GPU-{i:08x}-1111-2222-3333-444444444444, {i}, "
                    f"81559 MiB, {rng.randint(0, 81559)} MiB, {util} %, {util // 3} %, {40 + util // 4}, "
                    f"{70 + util * 6.3:.2f} W, 700.00 W, [N/A], P0, {1980 - util}, {1980 - util}, 2619, Default, "
                    "Enabled, Disabled\n"
                )
            polls += 1
    return polls


def _load(path: Path, root: str | None) -> tuple[int, int, float, int]:
    """Polls, rows, CPU seconds and peak RSS bytes of loading ``path`` in a fresh interpreter (``root``: with
    that checkout's gputui first on the path)."""
    env = dict(os.environ)
    if root:
        env["PYTHONPATH"] = root
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True, env=env)
    frames, rows, took, rss = out.stdout.split()
    return int(frames), int(rows), float(took), int(rss)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench nvsmi_csv")
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--keep", metavar="FILE", help="write the log here and keep it (reused if it exists)")
    ap.add_argument("--against", metavar="DIR", help="a checkout of gputui to compare with (its root folder)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    tmp = None
    if args.keep:
        path = Path(args.keep)
    else:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "bench.csv"
    try:
        if not path.exists():
            write_log(path, args.mb, args.gpus)
        size = path.stat().st_size
        runs: dict[str, list[tuple[int, int, float, int]]] = {"this": [], "against": []}
        for _ in range(args.rounds if args.against else 1):
            runs["this"].append(_load(path, None))
            if args.against:
                runs["against"].append(_load(path, args.against))
        frames, rows, took, rss = min(runs["this"], key=lambda r: r[2])
        print(f"file: {size / 1e6:.1f} MB, {frames} polls x {args.gpus} GPUs ({rows} rows)")
        print(f"load: {took:.2f} s CPU ({rows / took:,.0f} rows/s), best of {len(runs['this'])}")
        print(f"peak RSS: {rss / 1e6:.0f} MB = {rss / size:.2f} x the file size")
        if args.against:
            base = min(runs["against"], key=lambda r: r[2])
            print(f"{args.against}: {base[2]:.2f} s CPU, peak RSS {base[3] / 1e6:.0f} MB")
            print(f"ratio (this / against): CPU {took / base[2]:.2f}, memory {rss / base[3]:.2f}")
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0
