"""Resident memory of the dashboard over a long session on the demo cluster, sampled once a minute.

    python -m gputui.bench rss [--minutes 15] [--from 5] [--size 160x50] [--realtime] [--offset 0]

The dashboard runs here, headless at the given size, on a recording of the demo cluster made for the run (the
demo's four nodes and ten GPUs, ``--minutes`` + 1 long: the bundled demo ends at ten minutes; written by a
subprocess, so that the simulation and its imports are not in the process measured), playing at 1x. The UI
is imported before asyncio, as the dashboard's command does (see ui/render/process_memory.py). Time is
accelerated, and the acceleration is faithful: the replay's clock moves half a second at each poll, which is
what it moves between two polls when the app plays at 1x in real time (a poll every 0.5 s, see
Feed.next_interval); only the wall time between polls is shorter (the feed's floor, 0.1 s). Every poll is
applied and painted as in real time, so the memory sees the same frames, history and repaints. --realtime
runs on the real clock instead (as long as it says). ``--offset M`` starts the session M minutes into the
demo's simulation (its cluster changes until minute 10 and not after, so ``--offset 10`` shows what the
dashboard itself adds over time while what it shows stays alike). After the first frame the heap is settled as on a
terminal (gc.freeze). Reported: RSS (VmRSS) each minute, the growth from minute ``--from`` to the end, per
minute, and with --trace the total and the largest tracemalloc differences over that span.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from gputui.core.clock import ManualClock, SystemClock

POLL_STEP_S = 0.5  # replay seconds between two polls of a replay playing at 1x (Feed.next_interval)


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def long_demo(path: Path, minutes: int) -> None:
    """The demo cluster's simulation run for ``minutes`` + 1 minutes, as a recording."""
    from gputui.synth.demo import DEMO_SEED, DEMO_SOURCE, demo_meta
    from gputui.synth.demo_nodes import DemoNodes
    from gputui.synth.timeline import DEFAULT_START, run_nodes, write_recording

    nodes = DemoNodes(DEMO_SEED, DEFAULT_START).all()
    write_recording(path, run_nodes(nodes, (minutes + 1) * 60 + 1, DEFAULT_START, DEMO_SOURCE), demo_meta(DEMO_SEED))


class _StepClock(ManualClock):
    """Moves ``POLL_STEP_S`` at each replay poll (see the module's docstring)."""


async def _run(args: argparse.Namespace, recording: Path) -> list[tuple[float, float]]:
    import asyncio

    from gputui.sources.recording import RecordingReader
    from gputui.sources.replay import ReplaySource
    from gputui.ui import create_app
    from gputui.ui.render.app_internals import settle_heap

    clock = SystemClock() if args.realtime else _StepClock()
    source = ReplaySource(RecordingReader(recording), "demo recording (synthetic)", clock)
    source.seek(source.start_time + args.offset * 60)
    if not args.realtime:
        inner = source.poll

        def stepped_poll():  # type: ignore[no-untyped-def]
            clock.advance(POLL_STEP_S)  # type: ignore[union-attr]
            return inner()

        source.poll = stepped_poll  # type: ignore[method-assign]
    w, _, h = args.size.partition("x")
    # poll_interval 0.1: with the replay at 1x, the feed polls every 0.1 s of wall time (its floor)
    app = create_app(source, poll_interval=0.1, themes_path=Path(tempfile.gettempdir()) / "gputui-bench-no-themes")
    samples: list[tuple[float, float]] = []
    async with app.run_test(size=(int(w), int(h))) as pilot:
        await pilot.pause()
        settle_heap()
        source.play(1.0)
        app.feed.schedule(0)
        t0 = source.time
        next_minute = 0
        wall0 = time.monotonic()
        while True:
            now = source.time - t0
            if now >= next_minute * 60:
                gc.collect()
                samples.append((next_minute, rss_mib()))
                if args.trace and next_minute == args.start:
                    args.snapshot_at_start = tracemalloc.take_snapshot()
                print(f"  minute {next_minute:3d}: RSS {samples[-1][1]:6.1f} MiB", file=sys.stderr, flush=True)
                if next_minute >= args.minutes:
                    break
                next_minute += 1
            if source.at_end:
                break
            await asyncio.sleep(0.05 if not args.realtime else 1.0)
        print(f"  ({time.monotonic() - wall0:.0f} s of wall time)", file=sys.stderr)
        if args.trace:
            args.snapshot_at_end = tracemalloc.take_snapshot()
        if args.caches:
            _print_caches(app)
    return samples


def _print_caches(app) -> None:  # type: ignore[no-untyped-def]
    """The render caches of every widget, with their estimated bytes (byte_bound.py), largest first."""
    from gputui.ui.render.byte_bound import ByteBound
    from gputui.ui.render.cell_memo import CellMemo

    rows = []
    for widget in app.screen.walk_children():
        for name, value in vars(widget).items():
            cache = value._cells if isinstance(value, CellMemo) else value
            if isinstance(cache, ByteBound):
                rows.append((cache.held_bytes(), f"{type(widget).__name__}#{widget.id or ''}.{name}", len(cache)))
    for held, name, n in sorted(rows, reverse=True)[:15]:
        print(f"  {held / 1024:7.0f} KiB {n:6d} entries  {name}", file=sys.stderr)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench rss")
    ap.add_argument("--minutes", type=int, default=15)
    ap.add_argument("--from", dest="start", type=int, default=5, help="the minute from which RSS must be flat")
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--realtime", action="store_true", help="on the real clock (takes --minutes minutes)")
    ap.add_argument("--offset", type=int, default=0, help="start this many minutes into the demo's simulation")
    ap.add_argument("--caches", action="store_true", help="at the end, the render caches' estimated bytes")
    ap.add_argument("--trace", action="store_true", help="tracemalloc: the largest growths from --from to the end")
    args = ap.parse_args(argv)
    if not Path("/proc/self/status").exists():
        print("rss reads /proc/self/status, which needs Linux", file=sys.stderr)
        return 2
    import gputui.ui  # noqa: F401  # before asyncio, as the dashboard's command does (ui/render/process_memory.py)

    if args.trace:
        tracemalloc.start(8)
    with tempfile.TemporaryDirectory(prefix="gputui-rss-") as tmp:
        recording = Path(tmp) / "long-demo.gtrec"
        # in another process: the dashboard never imports the simulation that writes it (nor its hashlib)
        code = "import sys, pathlib, gputui.bench.rss as r; r.long_demo(pathlib.Path(sys.argv[1]), int(sys.argv[2]))"
        subprocess.run([sys.executable, "-c", code, str(recording), str(args.minutes + args.offset)], check=True)
        import asyncio

        samples = asyncio.run(_run(args, recording))
    tail = [(m, r) for m, r in samples if m >= args.start]
    clock = "real time" if args.realtime else "accelerated"
    offset = f", from minute {args.offset} of the demo" if args.offset else ""
    print(f"RSS of the dashboard on the demo cluster, {clock}, {args.size}{offset}:")
    print("  " + "  ".join(f"{m:g}:{r:.1f}" for m, r in samples))
    if len(tail) >= 2:
        (m0, r0), (m1, r1) = tail[0], tail[-1]
        slope = statistics.linear_regression([m for m, _ in tail], [r for _, r in tail]).slope
        print(
            f"  minute {m0:g} to {m1:g}: {r0:.1f} -> {r1:.1f} MiB "
            f"({r1 - r0:+.2f} MiB; fitted {slope * 1024:+.0f} KiB/min)"
        )
    if args.trace:
        stats = args.snapshot_at_end.compare_to(args.snapshot_at_start, "traceback")
        total = sum(s.size_diff for s in stats) / 1024
        print(f"Python allocations (tracemalloc), minute {args.start} to the end: {total:+.0f} KiB; largest growths:")
        for s in stats[:12]:
            where = [f"{f.filename.split('site-packages/')[-1].split('gputui/')[-1]}:{f.lineno}" for f in s.traceback]
            print(f"  {s.size_diff / 1024:+8.0f} KiB {s.count_diff:+7d} blocks  " + " <- ".join(reversed(where[-5:])))
    return 0
