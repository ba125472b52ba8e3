"""CPU used by the dashboard while it refreshes a busy cluster: per cent of one core, on Linux.

    python -m gputui.bench ui_cpu [--seconds 20] [--windows 3] [--warmup 5] [--interval 1] [--size 160x50]
    python -m gputui.bench ui_cpu --headless [...]        in this process, without a terminal
    python -m gputui.bench ui_cpu --profile FILE [...]     also write a cProfile of the app's run
    python -m gputui.bench ui_cpu --keys 3 [...]           type keys first (here: measure the history view)

The source is synthetic and live-like: 64 GPUs and 300 processes whose values all change at
every poll (prebuilt, so the source costs nothing). By default the app runs in a child process
on a pseudo-terminal of the given size, so the escape sequences it writes are part of the cost,
and the child's user + system time is read from /proc at the end of the warm-up and of each
measured window; the median window is the figure (other programs on the machine disturb single
windows). Where the kernel keeps per-thread counts, the CPU and wake-ups of each thread follow
(the main thread draws; a thread that wakes often costs CPU even when it does nothing). With
--headless the app runs here with Textual's headless driver (no output is encoded) and reads
its own CPU time with resource.getrusage.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import resource
import statistics
import struct
import subprocess
import sys
import termios
import threading
import time

CHILD_REPORT = re.compile(rb"ui_cpu child: polls=(\d+)")


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` from /proc/PID/stat (fields 14 and 15, after the command name)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_counts(pid: int) -> dict[int, tuple[float, int]]:
    """Each thread's CPU seconds (the scheduler's exact count) and voluntary context switches (sleeps)."""
    out: dict[int, tuple[float, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                sleeps = next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches"))
        except (OSError, StopIteration, ValueError, IndexError):
            continue  # the thread ended, or the kernel keeps no schedstat
        out[int(tid)] = (ns / 1e9, sleeps)
    return out


def _thread_report(before: dict[int, tuple[float, int]], after: dict[int, tuple[float, int]], wall: float) -> str:
    """'main 0.72 % (2.3 wake-ups/s), thread 2 0.02 % (2.0/s), ...': where the CPU went, thread by thread."""
    parts = []
    for n, tid in enumerate(sorted(set(before) & set(after))):
        cpu = (after[tid][0] - before[tid][0]) / wall * 100
        wakes = (after[tid][1] - before[tid][1]) / wall
        parts.append(f"{'main' if n == 0 else f'thread {n + 1}'} {cpu:.2f} % ({wakes:.1f} wake-ups/s)")
    return ", ".join(parts)


def _build_app(interval: float, static: bool = False):  # type: ignore[no-untyped-def]
    from gputui.bench._ui_cluster import CyclingSource, busy_frames
    from gputui.ui import create_app

    source = CyclingSource(busy_frames(1 if static else 300))
    return create_app(source, poll_interval=interval), source


def run_child(args: argparse.Namespace) -> int:
    """The measured process: the dashboard on the synthetic source until 'q' or a signal."""
    app, source = _build_app(args.interval, args.static)
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        app.run()
        prof.disable()
        prof.dump_stats(args.profile)
    else:
        app.run()
    print(f"ui_cpu child: polls={source.polls}", flush=True)
    return 0


def run_pty(args: argparse.Namespace) -> int:
    width, height = _size(args.size)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
    cmd = [sys.executable, "-m", "gputui.bench", "ui_cpu", "--child", "--interval", str(args.interval)]
    if args.static:
        cmd.append("--static")
    if args.profile:
        cmd += ["--profile", args.profile]
    env = dict(os.environ, TERM=os.environ.get("BENCH_TERM", "xterm-256color"), COLUMNS=str(width), LINES=str(height))
    child = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    output = bytearray()
    written = [0]

    def drain() -> None:  # a terminal that reads everything at once, like a fast emulator
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            written[0] += len(chunk)
            output.extend(chunk[-4096:])
            del output[:-8192]

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        if args.keys:
            time.sleep(min(3.0, args.warmup / 2))  # typed once the app is up, before measuring
            os.write(master, args.keys.encode())
            time.sleep(max(0.0, args.warmup - min(3.0, args.warmup / 2)))
        else:
            time.sleep(args.warmup)
        if child.poll() is not None:
            print(f"the app exited early (code {child.returncode}):\n{output.decode(errors='replace')}")
            return 1
        shares = []
        threads0 = thread_counts(child.pid)
        cpu0, wall0, bytes0 = cpu_seconds(child.pid), time.monotonic(), written[0]
        start_cpu, start_wall = cpu0, wall0
        for _ in range(args.windows):
            time.sleep(args.seconds)
            cpu1, wall1 = cpu_seconds(child.pid), time.monotonic()
            shares.append((cpu1 - cpu0) / (wall1 - wall0) * 100)
            cpu0, wall0 = cpu1, wall1
        bytes1 = written[0]
        threads1 = thread_counts(child.pid)
        os.write(master, b"q")
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        reader.join(timeout=2)
        os.close(master)
    found = CHILD_REPORT.search(bytes(output))
    polls = found.group(1).decode() if found else "?"
    total = (cpu0 - start_cpu) / (wall0 - start_wall) * 100
    what = "unchanging" if args.static else "all changing"
    print(f"dashboard on {args.size}, 64 GPUs / 300 processes {what}, poll every {args.interval:g} s")
    print(f"CPU in {args.windows} windows of {args.seconds:g} s after {args.warmup:g} s warm-up, % of one core:")
    print("  " + "  ".join(f"{x:.2f}" for x in shares) + f"   median {statistics.median(shares):.2f}   all {total:.2f}")
    print(f"terminal output: {(bytes1 - bytes0) / (wall0 - start_wall) / 1024:.1f} KiB/s; polls in the run: {polls}")
    if threads0 and threads1:
        print("by thread, over all windows: " + _thread_report(threads0, threads1, wall0 - start_wall))
    return 0


def run_headless(args: argparse.Namespace) -> int:
    app, source = _build_app(args.interval, args.static)
    marks: dict[str, tuple[float, float]] = {}

    def mark(name: str) -> None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        marks[name] = (usage.ru_utime + usage.ru_stime, time.monotonic())

    def finish() -> None:
        mark("end")
        app.exit()

    def started() -> None:
        app.set_timer(args.warmup, lambda: mark("start"))
        app.set_timer(args.warmup + args.seconds * args.windows, finish)

    app.call_later(started)
    app.run(headless=True, size=_size(args.size))
    (cpu0, wall0), (cpu1, wall1) = marks["start"], marks["end"]
    share = (cpu1 - cpu0) / (wall1 - wall0) * 100
    what = "unchanging" if args.static else "all changing"
    print(f"headless dashboard on {args.size}, 64 GPUs / 300 processes {what}, poll every {args.interval:g} s")
    print(f"CPU over {wall1 - wall0:.1f} s after {args.warmup:g} s warm-up: {share:.2f} % of one core")
    print(f"polls in the whole run: {source.polls}")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench ui_cpu")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of one measured window (default 20)")
    ap.add_argument("--windows", type=int, default=3, help="measured windows, one after the other (default 3)")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (default 5)")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between polls (default 1)")
    ap.add_argument("--size", default="160x50", help="terminal size WxH (default 160x50)")
    ap.add_argument("--headless", action="store_true", help="run in this process with no terminal output")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the app's run to FILE")
    ap.add_argument("--static", action="store_true", help="the same snapshot at every poll: the cost of polling alone")
    ap.add_argument("--keys", default="", help="keys typed into the app before measuring: 'd' hides the detail pane")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return run_child(args)
    if not os.path.exists("/proc/self/stat"):
        print("ui_cpu needs Linux /proc to read a child's CPU time; try --headless", file=sys.stderr)
        return 2
    return run_headless(args) if args.headless else run_pty(args)
