"""Time of one NVML poll of every GPU (all fields, MIG, processes, MPS), and the NVML calls it makes.

python -m gputui.bench nvml_poll [--polls 50]           the local GPUs, through the driver
python -m gputui.bench nvml_poll --fake [--gpus 8]      the collector against the fake NVML (no GPU needed)
python -m gputui.bench nvml_poll --gpm [--fake]         GPM on against GPM off, polls interleaved (the fake:
                                                        8 H100s with 7 MIG instances each)

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


def mig_node(gpus: int):  # type: ignore[no-untyped-def]
    """``gpus`` H100s in MIG mode with seven 1g.10gb instances each, every instance with GPM activity."""
    from gputui.core.model import Activity, ComputeInstance, GpuInstance, NodeSnapshot

    base = fake_node(1).gpus[0]  # the demo's first MIG H100
    out = []
    for i in range(gpus):
        gis = tuple(
            GpuInstance(
                gi_id=7 + k,
                profile="1g.10gb",
                memory_total_mib=9984,
                memory_used_mib=1000 * k,
                compute_instances=(ComputeInstance(0),),
                activity=Activity(10 * k, 5 * k, 3 * k, 2 * k),
            )
            for k in range(7)
        )
        out.append(replace(base, index=i, uuid=f"GPU-bench-{i}", gpu_instances=gis, processes=(), mps=None))
    return NodeSnapshot("bench", tuple(out), "550.90.07", "12.4")


def compare_gpm(args: argparse.Namespace) -> int:
    """GPM on and off side by side: one poll of each in turn, medians and their ratio."""
    from gputui.sources.nvml import NvmlSource

    if args.fake:
        from gputui.sources.nvml_fake import FakeNvml

        node = mig_node(args.gpus)
        fakes = {g: FakeNvml(node) for g in (True, False)}
        for f in fakes.values():
            f.timed = True
        on, off = (NvmlSource(fakes[g], node_name="bench", gpm=g) for g in (True, False))
        what = f"fake NVML, {args.gpus} H100s x 7 MIG instances"
    else:
        try:
            on, off = NvmlSource(gpm=True), NvmlSource(gpm=False)
        except NvmlUnavailable as e:
            print(f"nvml_poll: no NVIDIA driver answered ({e}); nothing measured")
            return 0
        what = "the local driver"
    times: dict[bool, list[float]] = {True: [], False: []}
    own: dict[bool, list[float]] = {True: [], False: []}  # the collector's part: the fake's answers left out
    calls: dict[bool, list[int]] = {True: [], False: []}
    fake_s = (lambda g: fakes[g].seconds) if args.fake else (lambda g: 0.0)
    try:
        on.poll(), off.poll()
        for k in range(2 * max(1, args.polls)):
            gpm = k % 2 == 0
            src = on if gpm else off
            c0, f0 = src.calls.count, fake_s(gpm)
            t0 = time.perf_counter()
            src.poll()
            dt = time.perf_counter() - t0
            times[gpm].append(dt)
            own[gpm].append(dt - (fake_s(gpm) - f0))
            calls[gpm].append(src.calls.count - c0)
    finally:
        on.close()
        off.close()
    med = {g: statistics.median(t) for g, t in times.items()}
    mine = {g: statistics.median(t) for g, t in own.items()}
    ncalls = {g: statistics.median(c) for g, c in calls.items()}
    print(f"nvml_poll --gpm: {what}, {len(times[True])} polls each, interleaved")
    for g in (False, True):
        line = f"  GPM {'on ' if g else 'off'}: median {med[g] * 1000:7.2f} ms"
        if args.fake:
            line += f"   collector alone {mine[g] * 1000:7.2f} ms"
        print(line + f"   NVML calls per poll {ncalls[g]:g}")
    print(f"  ratio on / off: {med[True] / med[False]:.2f}x", end="")
    if args.fake:
        print(f" (fake included); collector alone {mine[True] / mine[False]:.2f}x", end="")
    print(f"; NVML calls {ncalls[True] / ncalls[False]:.2f}x")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench nvml_poll")
    ap.add_argument("--polls", type=int, default=50)
    ap.add_argument("--fake", action="store_true", help="measure against the fake NVML instead of the driver")
    ap.add_argument("--gpus", type=int, default=8, help="GPUs of the fake machine (default 8)")
    ap.add_argument("--gpm", action="store_true", help="GPM on against GPM off, side by side")
    args = ap.parse_args(argv)
    if args.gpm:
        return compare_gpm(args)
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
