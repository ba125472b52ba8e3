"""Time to apply one snapshot of 64 GPUs / 300 processes to the dashboard, up to the bytes for the terminal.

    python -m gputui.bench ui_apply [--frames 60] [--size 160x50] [--view overview|history] [--profile N]

The app runs headless at a fixed size on the synthetic busy cluster (every GPU changes in every
frame), with the cursor on a GPU with processes so that the detail pane changes too. For each
frame it times: ``apply_snapshot`` (diffing rows and marking what changed), the layout pass if
one was needed, Textual's repaint of the dirty regions (``render_update``), and the encoding of
that update into escape sequences as the terminal driver would write them. The sum is the
figure the <= 30 ms target is about. --view history times the History view instead (its graphs move
with every frame). --profile N prints the N costliest functions of those parts.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


class _Timed:
    """Wraps a callable, adding the seconds spent in it to ``spent``."""

    def __init__(self, real: Callable[..., Any], after: Callable[[Any], None] | None = None) -> None:
        self.real = real
        self.after = after
        self.spent = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            result = self.real(*args, **kwargs)
            if self.after is not None:
                self.after(result)
            return result
        finally:
            self.spent += time.perf_counter() - t


async def measure(
    frames: int, size: tuple[int, int], profile: int = 0, view: str = "overview"
) -> dict[str, list[float]]:
    """Per-frame milliseconds of each phase, over ``frames`` snapshots after one warm-up frame."""
    import cProfile
    import pstats

    from gputui.bench._ui_cluster import CyclingSource, busy_frames
    from gputui.ui import create_app

    snaps = busy_frames(frames + 1)
    source = CyclingSource(snaps[:1])
    app = create_app(source, poll_interval=3600)
    phases: dict[str, list[float]] = {"apply": [], "layout": [], "paint": [], "encode": [], "total": []}
    prof = cProfile.Profile() if profile else None
    async with app.run_test(size=size) as pilot:
        await app.wait_for_polls()
        await pilot.pause()
        await pilot.press("down", "down")  # a GPU with processes in the detail pane, as a user would have
        await pilot.pause()
        if view == "history":
            await pilot.press("3")
            for _ in range(60):
                if getattr(app.screen, "VIEW", None) == "history" and app.screen.is_mounted:
                    break
                await pilot.pause(0.02)
            await pilot.pause()
        gc.collect()
        gc.freeze()  # what the app does after its first frame on a terminal (not headless, as here)
        screen = app.screen
        compositor = screen._compositor
        console = app.console
        encode = _Timed(lambda update: update.render_segments(console) if update is not None else "")
        paint = _Timed(compositor.render_update, after=encode)
        layout = _Timed(screen._refresh_layout)
        compositor.render_update = paint  # type: ignore[method-assign]
        screen._refresh_layout = layout  # type: ignore[method-assign]
        try:
            for snap in snaps[1:]:
                paint.spent = encode.spent = layout.spent = 0.0
                if prof:
                    prof.enable()
                t = time.perf_counter()
                app.apply_snapshot(snap.with_time(snap.timestamp + 1_000))
                applied = time.perf_counter() - t
                await pilot.pause()  # the app handles the messages it posted and paints the next frame
                if prof:
                    prof.disable()
                values = {
                    "apply": applied,
                    "layout": layout.spent,
                    "paint": paint.spent - encode.spent,
                    "encode": encode.spent,
                }
                values["total"] = sum(values.values())
                for k, v in values.items():
                    phases[k].append(v * 1000)
        finally:
            compositor.render_update = paint.real  # type: ignore[method-assign]
            screen._refresh_layout = layout.real  # type: ignore[method-assign]
            gc.unfreeze()
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(profile)
    return phases


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench ui_apply")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--size", default="160x50", help="terminal size WxH (default 160x50)")
    ap.add_argument("--view", choices=("overview", "history"), default="overview", help="the view in front")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print the N costliest functions")
    args = ap.parse_args(argv)
    phases = asyncio.run(measure(args.frames, _size(args.size), args.profile, args.view))
    where = "detail pane on GPU 2" if args.view == "overview" else "History view, GPU 2 selected"
    print(f"64 GPUs / 300 processes, every GPU changing, {args.frames} frames at {args.size}, {where}")
    for name, label in (
        ("apply", "apply_snapshot (diff, mark dirty rows)"),
        ("layout", "layout pass"),
        ("paint", "repaint of dirty regions"),
        ("encode", "escape sequences for the terminal"),
        ("total", "apply to screen, total"),
    ):
        values = phases[name]
        print(f"{label:<40} median {statistics.median(values):6.2f} ms   max {max(values):6.2f} ms")
    return 0
