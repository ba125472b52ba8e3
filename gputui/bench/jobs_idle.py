"""`python -m gputui.bench jobs_idle [--jobs 10000] [--seconds 10]`: CPU of the idle dashboard, overview against the
jobs view, with a long queue.

A simulated queue on a four-GPU machine: one job holds every GPU, ``--jobs`` more wait behind it, and the
frame never changes, so nothing moves; the app polls each second. Each view is measured in a fresh headless
app (Textual's headless driver) for ``--seconds`` after a warm-up, as per cent of one core (this process's
user + system time). The jobs view should cost what the overview costs: an unchanged queue is not redrawn.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class _Still:
    """A source whose frame never changes."""

    description = "still machine"

    def __init__(self, snap: object) -> None:
        self.snap = snap

    def poll(self) -> object:
        return self.snap

    def close(self) -> None:
        pass


async def _measure(view_key: str, jobs: int, seconds: float, root: Path) -> float:
    from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
    from gputui.jobs.records import User
    from gputui.jobs.runners.simulated import SimRunner
    from gputui.jobs.service import JobService
    from gputui.jobs.store import JobStore
    from gputui.ui import create_app

    gpus = tuple(GpuSnapshot(i, uuid=f"GPU-{i}", name="NVIDIA A100-SXM4-40GB", memory_total_mib=40960,
                             memory_used_mib=0, utilization_gpu=0) for i in range(4))  # fmt: skip
    snap = ClusterSnapshot(1_800_000_000.0, (NodeSnapshot("node01", gpus),), "still")
    db = root / f"{view_key}.db"
    svc = JobService(JobStore(db), SimRunner(), "bench", user=User("alice", 1001))
    svc.tick(snap)
    svc.submit("--gpus=4 -t 100", ["true"])
    svc.tick(snap)
    for _ in range(jobs):
        svc.submit("--gpus=1 -J waiting -t 10", ["true"])
    svc.tick(snap)
    app = create_app(_Still(snap), jobs_service=svc, poll_interval=1.0, themes_path=root / "none")  # type: ignore[arg-type]
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(2)
        await pilot.press(view_key)
        await pilot.pause(3)
        c0, w0 = _cpu(), time.perf_counter()
        await asyncio.sleep(seconds)
        share = (_cpu() - c0) / (time.perf_counter() - w0) * 100
    svc.close()
    return share


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench jobs_idle")
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = {}
        for name, key in (("overview", "1"), ("jobs view", "4"), ("overview again", "1")):
            out[name] = asyncio.run(_measure(key, args.jobs, args.seconds, Path(tmp)))
            print(f"{name}: {out[name]:.1f}% of a core, idle, {args.jobs} queued jobs")
    base = (out["overview"] + out["overview again"]) / 2
    print(f"jobs view / overview: {out['jobs view'] / base:.2f}" if base else "overview used no CPU")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
