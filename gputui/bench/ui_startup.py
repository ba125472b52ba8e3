"""Time from process start to the dashboard's first complete frame, on the bundled demo recording.

    python -m gputui.bench ui_startup [--runs 10] [--size 160x50] [--source demo] [--baseline] [--instructions]

Each run spawns ``python -m gputui SOURCE --paused`` on a pseudo-terminal with the environment
variable GPUTUI_EXIT_AFTER_FIRST_FRAME=1: the app then exits as soon as its first snapshot has
been applied and painted, printing the monotonic time of that moment (the same clock as here on
Linux). Reported: spawn to first frame, and spawn to process exit (the first plus Python's
shutdown), as median and best over the runs; --baseline times a bare Textual app with a 64-row
DataTable the same way, interleaved, for what Textual alone costs on the machine at hand.
The runs use compiled bytecode (as an installed package does); the warm-up run writes it. They use a state
directory of their own: empty, so that the job service opens after the first frame (a queue with no job
waiting or running cannot change it), or with --queued a job running in the demo's queue, so that it opens
before. --instructions also runs each once under valgrind's callgrind, the process ending right at its first
frame (GPUTUI_EXIT_AFTER_FIRST_FRAME=now), and reports the instructions executed to it: the same count whatever
else the machine does, where the wall times of a loaded machine vary by half. (Under callgrind the poll thread
runs fifty times slower, so gputui may miss its first-poll wait and paint twice: the count errs against it.)
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

FIRST_FRAME = re.compile(rb"first complete frame at monotonic (\d+\.\d+)")

# For --baseline: a bare Textual app with a 64-row DataTable, timed the same way (what Textual alone costs).
BARE_APP = """
import os
import time
from textual.app import App
from textual.widgets import DataTable

class Bare(App):
    def compose(self):
        yield DataTable()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns(*"abcdefgh")
        for i in range(64):
            table.add_row(*[str(i * j) for j in range(8)])
        self.call_after_refresh(self.painted)

    def painted(self):
        # stamped here, after the paint, as gputui stamps its first frame (GputuiApp.first_frame_drawn)
        message = f"first complete frame at monotonic {time.monotonic():.6f}"
        if os.environ.get("GPUTUI_EXIT_AFTER_FIRST_FRAME") == "now":  # --instructions: the count stops here
            os.write(1, message.encode() + b"\\n")
            os._exit(0)
        self.exit(message=message)

Bare().run()
"""


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


def queue_a_job(source: str, state: Path) -> str:
    """Submit a job to ``source``'s queue in the state directory ``state`` and let it start; returns its state."""
    from gputui.cli.job_session import open_session

    os.environ["GPUTUI_STATE_DIR"] = str(state)
    session = open_session(source)
    try:
        rec = session.service.submit("--gpus=1 -t 12:00:00 -J bench", ["python", "train.py"])
        session.service.tick(session.snapshot)
        detail = session.service.get(rec.id)
        return detail.record.state if detail is not None else "missing"
    finally:
        session.close()


def one_run(
    source: str, size: tuple[int, int], bare: bool = False, state: Path | None = None, counted: Path | None = None
) -> tuple[float, float]:
    """Seconds from spawn to the first frame and to the exit of one dashboard (or bare app) process; with
    ``counted``, under callgrind writing its count there, the process ending at the first frame."""
    width, height = size
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
    env = dict(os.environ, GPUTUI_EXIT_AFTER_FIRST_FRAME="1", TERM=os.environ.get("BENCH_TERM", "xterm-256color"))
    if counted is not None:
        env["GPUTUI_EXIT_AFTER_FIRST_FRAME"] = "now"
        env["PYTHONHASHSEED"] = "0"
    if state is not None:
        env["GPUTUI_STATE_DIR"] = str(state)
    # Bytecode as an installed package has it: the warm-up run writes it if it is missing. (With
    # PYTHONDONTWRITEBYTECODE set, every run would compile gputui's sources again: ~0.15 s.)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-c", BARE_APP] if bare else [sys.executable, "-m", "gputui", source, "--paused"]
    if counted is not None:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={counted}", *cmd]
    started = time.monotonic()
    child = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    output = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output.extend(chunk)
    child.wait(timeout=30)
    ended = time.monotonic()
    os.close(master)
    found = FIRST_FRAME.search(bytes(output))
    if found is None or child.returncode != 0:
        tail = output[-2000:].decode(errors="replace")
        raise RuntimeError(f"no first-frame mark (exit code {child.returncode}); the output ended with:\n{tail}")
    return float(found.group(1)) - started, ended - started


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench ui_startup")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--size", default="160x50", help="terminal size WxH (default 160x50)")
    ap.add_argument("--source", default="demo", help="what the dashboard opens (default: the bundled demo)")
    ap.add_argument("--baseline", action="store_true", help="also time a bare Textual app with a 64-row table")
    ap.add_argument("--queued", action="store_true", help="with a job running in the queue (the service opens first)")
    ap.add_argument(
        "--instructions", action="store_true", help="also count instructions to the first frame (valgrind; one run)"
    )
    args = ap.parse_args(argv)
    if args.instructions and shutil.which("valgrind") is None:
        print("ui_startup: --instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    if sys.platform != "linux":
        print("ui_startup compares monotonic clocks across processes, which needs Linux", file=sys.stderr)
        return 2
    size = _size(args.size)
    kinds = [False, True] if args.baseline else [False]
    times: dict[bool, tuple[list[float], list[float]]] = {k: ([], []) for k in kinds}
    with tempfile.TemporaryDirectory(prefix="gputui-bench-") as tmp:
        state = Path(tmp) / "state"
        if args.queued:
            print(f"a job in the queue of {args.source}: {queue_a_job(args.source, state)}")
        for bare in kinds:
            one_run(args.source, size, bare, state)  # warm the file cache and the bytecode cache
        for _ in range(args.runs):  # interleaved, so that both see the same machine load
            for bare in kinds:
                first, whole = one_run(args.source, size, bare, state)
                times[bare][0].append(first)
                times[bare][1].append(whole)
        counts = (
            {bare: instructions(args.source, size, bare, state, Path(tmp)) for bare in kinds}
            if args.instructions
            else {}
        )
    print(f"{args.runs} runs each after one warm-up run, at {args.size}; seconds from spawn:")
    for bare in kinds:
        frames, exits = times[bare]
        queue = ", a job running" if args.queued else ""
        name = "bare Textual, 64-row table" if bare else f"gputui {args.source}{queue}"
        print(
            f"  {name:<28} first complete frame: median {statistics.median(frames):.3f}  best {min(frames):.3f}"
            f"   exit: median {statistics.median(exits):.3f}"
        )
    if args.baseline:
        ours, base = times[False][0], times[True][0]
        paired = statistics.median(a / b for a, b in zip(ours, base, strict=True))
        print(
            f"  gputui / bare Textual, first complete frame: ratio of medians "
            f"{statistics.median(ours) / statistics.median(base):.2f}, "
            f"median of the {len(ours)} paired ratios {paired:.2f}"
        )
    if counts:
        said = ", ".join(f"{'bare Textual' if bare else 'gputui'} {n / 1e6:,.0f} M" for bare, n in counts.items())
        ratio = f"; gputui / bare Textual {counts[False] / counts[True]:.3f}" if len(counts) == 2 else ""
        print(f"  instructions from spawn to the first complete frame (callgrind, one run each): {said}{ratio}")
    return 0


def instructions(source: str, size: tuple[int, int], bare: bool, state: Path, tmp: Path) -> int:
    """Instructions one process executes up to its first complete frame, counted by callgrind."""
    out = tmp / f"callgrind-{'bare' if bare else 'gputui'}.out"
    one_run(source, size, bare, state, counted=out)
    text = out.read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    if found is None:
        raise RuntimeError(f"no instruction count in {out}")
    return int(found.group(1))
