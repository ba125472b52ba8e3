"""Cost of one /metrics scrape of a 64-GPU cluster (8 nodes x 8 A100-80GB, a quarter MIG, a quarter MPS, jobs from
the synthetic cluster's events): a new frame each time, so nothing is cached.

python -m gputui.bench export [--frames 60] [--rounds 5]

Interleaved in each round, on the same frames:
- gputui: the frame's families built and rendered (what the first scrape after a poll costs);
- HTTP: the same, fetched through the running endpoint on 127.0.0.1 (request, render, response);
- HTTP, cached: a second fetch of the same frame (the transport alone: urllib and http.server in one process);
- baseline: prometheus_client's generate_latest of the same samples (already built, so only its encoding).
Target: gputui at most 5 ms per scrape.
"""

from __future__ import annotations

import argparse
import statistics
import time
import urllib.request
from collections.abc import Callable

from gputui.export.attribution import from_events
from gputui.export.collector import FrameCollector, render
from gputui.export.frame import Frame
from gputui.export.server import start_server
from gputui.synth.cluster import synth_cluster_steps

TARGET_MS = 5.0


def make_frames(count: int, seed: int = 7) -> list[Frame]:
    events: list = []
    frames = []
    for snap, evs in synth_cluster_steps(8, 8, seconds=120 + count, seed=seed, mig_fraction=0.25, mps_fraction=0.25):
        events.extend(evs)
        frames.append(Frame(snap, from_events(events), snap.timestamp))
    return frames[-count:]


def _per_call(fn: Callable[[Frame], object], frames: list[Frame]) -> float:
    t0 = time.perf_counter()
    for f in frames:
        fn(f)
    return (time.perf_counter() - t0) / len(frames) * 1000


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench export")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    frames = make_frames(args.frames)
    lines = sum(render(f).count(b"\n") for f in frames) / len(frames)
    print(
        f"{frames[0].snapshot.gpu_count} GPUs, {lines:.0f} lines per scrape, {len(frames)} frames, {args.rounds} rounds"
    )

    baseline: Callable[[Frame], object] | None = None
    try:
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.parser import text_string_to_metric_families

        parsed = {id(f): list(text_string_to_metric_families(render(f).decode())) for f in frames}

        class _Fixed:
            def __init__(self, fams: list) -> None:
                self.fams = fams

            def collect(self) -> list:
                return self.fams

        def baseline(f: Frame) -> bytes:
            registry = CollectorRegistry(auto_describe=False)
            registry.register(_Fixed(parsed[id(f)]))  # type: ignore[arg-type]
            return generate_latest(registry)
    except ImportError:
        print("prometheus_client is not installed (pip install '.[test]'): no baseline")

    collector = FrameCollector()
    server = start_server("127.0.0.1", 0, collector)
    url = f"http://127.0.0.1:{server.server_address[1]}/metrics"

    def http(f: Frame) -> bytes:
        collector.update(f)
        with urllib.request.urlopen(url) as r:
            return r.read()

    def http_cached(f: Frame) -> bytes:
        with urllib.request.urlopen(url) as r:
            return r.read()

    results: dict[str, list[float]] = {"gputui": [], "HTTP": [], "HTTP, cached": [], "baseline": []}
    try:
        for _ in range(args.rounds):
            results["gputui"].append(_per_call(render, frames))
            results["HTTP"].append(_per_call(http, frames))
            results["HTTP, cached"].append(_per_call(http_cached, frames))
            if baseline is not None:
                results["baseline"].append(_per_call(baseline, frames))
    finally:
        server.shutdown()
        server.server_close()
    med = {k: statistics.median(v) for k, v in results.items() if v}
    for name, ms in med.items():
        print(f"{name:12s} median {ms:7.2f} ms per scrape   (rounds: {', '.join(f'{x:.2f}' for x in results[name])})")
    if "baseline" in med:
        print(f"gputui / prometheus_client encoder: {med['gputui'] / med['baseline']:.3f}x")
    verdict = "within" if med["gputui"] <= TARGET_MS else "OVER"
    print(f"target {TARGET_MS:g} ms: {verdict}")
    return 0
