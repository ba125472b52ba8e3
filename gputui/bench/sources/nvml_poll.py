"""Time of one NVML poll of every GPU (all fields, MIG, processes, MPS), and the NVML calls it makes.

python -m gputui.bench nvml_poll [--polls 50]           the local GPUs, through the driver
python -m gputui.bench nvml_poll --fake [--gpus 8]      the collector against the fake NVML (no GPU needed)

The fake machine mixes the demo's MIG H100s, MPS A100s and whole GPUs; its timing is the collector's
Python cost plus the fake's, an upper bound of the overhead around real NVML calls.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from gputui.core.errors import NvmlUnavailable


def fake_node(gpus: int):  # type: ignore[no-untyped-def]
    """A node of ``gpus`` GPUs cycling through the demo's node03 (MIG), node04 (MPS) and node01 GPUs."""
    from gputui.core.model import NodeSnapshot
    from gputui.resources import demo_recording
    from gputui.sources.recording import RecordingReader

    r = RecordingReader(demo_recording())
    frame = r.frame(r.frame_count // 2)
    r.close()
    pool = [g for name in ("node03", "node04", "node01") for g in frame.node(name).gpus]
    chosen = tuple(replace(pool[i % len(pool)], index=i) for i in range(gpus))
    return NodeSnapshot("bench", chosen, "550.90.07", "12.4")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench nvml_poll")
    ap.add_argument("--polls", type=int, default=50)
    ap.add_argument("--fake", action="store_true", help="measure against the fake NVML instead of the driver")
    ap.add_argument("--gpus", type=int, default=8, help="GPUs of the fake machine (default 8)")
    args = ap.parse_args(argv)
    from gputui.sources.nvml import NvmlSource

    if args.fake:
        from gputui.sources.nvml_fake import FakeNvml

        src = NvmlSource(FakeNvml(fake_node(args.gpus)), node_name="bench")
        what = f"fake NVML, {args.gpus} GPUs (demo MIG H100s, MPS A100s, whole GPUs)"
    else:
        try:
            src = NvmlSource()
        except NvmlUnavailable as e:
            print(f"nvml_poll: no NVIDIA driver answered ({e}); nothing measured")
            return 0
        what = "the local driver"
    try:
        first_t0 = time.perf_counter()
        snap = src.poll()
        first = time.perf_counter() - first_t0
        gpus = snap.gpu_count
        times, calls = [], []
        for _ in range(max(1, args.polls)):
            c0 = src.calls.count
            t0 = time.perf_counter()
            src.poll()
            times.append(time.perf_counter() - t0)
            calls.append(src.calls.count - c0)
    finally:
        src.close()
    times.sort()
    per_poll = statistics.median(calls)
    print(f"nvml_poll: {what}: {gpus} GPUs, {len(times)} polls")
    print(f"  first poll (handles, MIG layout, N/A discovery): {first * 1000:7.2f} ms")
    print(
        f"  poll: median {statistics.median(times) * 1000:7.2f} ms   min {times[0] * 1000:7.2f} ms   "
        f"max {times[-1] * 1000:7.2f} ms"
    )
    if gpus:
        print(f"  NVML calls per poll: {per_poll:g} ({per_poll / gpus:.1f} per GPU)")
    return 0
