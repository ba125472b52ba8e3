"""Recording benchmark: size per GPU per frame, open time, and seek time on a long recording.

    python -m gputui.bench recording [--hours 24] [--gpus 8] [--seeks 200] [--keep FILE]

Writes a synthetic recording (1 Hz, one node) to a temporary file, then opens it and seeks to
random timestamps, timing each seek from a fresh open and from an open reader.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.synth import synth_cluster


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench recording")
    ap.add_argument("--hours", type=float, default=24.0)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--seeks", type=int, default=200)
    ap.add_argument("--keep", metavar="FILE", help="write the recording here and keep it (reused if it exists)")
    args = ap.parse_args(argv)
    frames = int(args.hours * 3600)
    tmp = None
    if args.keep:
        path = Path(args.keep)
    else:
        tmp = tempfile.TemporaryDirectory()
        path = Path(tmp.name) / "bench.gtrec"
    try:
        if not path.exists():
            t0 = time.perf_counter()
            with RecordingWriter(path, meta={"bench": True}) as w:
                for snap in synth_cluster(nodes=1, gpus_per_node=args.gpus, seconds=frames, seed=7):
                    w.append(snap)
            took = time.perf_counter() - t0
            print(f"wrote {frames} frames x {args.gpus} GPUs in {took:.1f} s ({frames / took:.0f} frames/s)")
        size = path.stat().st_size
        print(f"file size: {size / 1e6:.2f} MB = {size / (frames * args.gpus):.1f} bytes per GPU per frame")

        t0 = time.perf_counter()
        reader = RecordingReader(path)
        open_s = time.perf_counter() - t0
        print(f"open (index from trailer): {_ms(open_s)}")
        rnd = random.Random(1)
        targets = [rnd.uniform(reader.start_time, reader.end_time) for _ in range(args.seeks)]
        warm, cold = [], []
        for t in targets:
            t0 = time.perf_counter()
            reader.frame(reader.locate(t))
            warm.append(time.perf_counter() - t0)
        for t in targets[: max(1, args.seeks // 4)]:
            t0 = time.perf_counter()
            r = RecordingReader(path)
            r.frame(r.locate(t))
            cold.append(time.perf_counter() - t0)
            r.close()
        reader.close()
        for label, xs in (("seek, reader open", warm), ("open + seek, fresh reader", cold)):
            xs.sort()
            print(
                f"{label}: median {_ms(statistics.median(xs))}, p95 {_ms(xs[int(len(xs) * 0.95) - 1])}, "
                f"max {_ms(xs[-1])} over {len(xs)} random timestamps"
            )

        # A recording that was never closed (a crash) has no trailer: the reader scans it once.
        crashed = path.with_suffix(".crashed")
        data = path.read_bytes()
        crashed.write_bytes(data[: reader.index.data_end])
        t0 = time.perf_counter()
        RecordingReader(crashed).close()
        print(f"open without index (after a crash, full scan): {_ms(time.perf_counter() - t0)}")
        os.unlink(crashed)
    finally:
        if tmp is not None:
            tmp.cleanup()
    return 0
