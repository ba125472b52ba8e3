"""Resident memory of the dashboard against nvitop's monitor, both live on the same 8 fake GPUs.

python -m gputui.bench rss_peers [--seconds 60] [--size 160x50] [--nvitop PATH]

Each program runs on a pseudo-terminal of the given size with the fake NVML of ``python -m gputui.bench oneshot``
(gputui.sources.nvml_patched, loaded by a sitecustomize in both), polling once a second, for ``--seconds``;
VmRSS is read from /proc at the end. The two run one after the other, twice each, alternating; the higher of
each program's two readings is reported. nvitop is looked for as the oneshot bench does.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

from gputui.bench.oneshot import _SITE, find_nvitop, spec_of
from gputui.sources import nvml_patched


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one(cmd: list[str], env: dict[str, str], seconds: float, size: tuple[int, int]) -> float:
    """RSS in MiB of ``cmd`` after ``seconds`` on a pseudo-terminal (its output read and dropped)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    child = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)

    def drain() -> None:
        while True:
            try:
                if not os.read(master, 65536):
                    return
            except OSError:
                return

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    time.sleep(seconds)
    rss = _rss_mib(child.pid)
    child.terminate()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    os.close(master)
    return rss


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench rss_peers")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--size", default="160x50")
    ap.add_argument("--nvitop", metavar="PATH")
    args = ap.parse_args(argv)
    nvitop = find_nvitop(args.nvitop)
    if nvitop is None:
        print("rss_peers: nvitop not found (see python -m gputui.bench oneshot --help)", file=sys.stderr)
        return 2
    w, _, h = args.size.partition("x")
    size = (int(w), int(h))
    with tempfile.TemporaryDirectory(prefix="gputui-rss-peers-") as tmp:
        spec = Path(tmp, "spec.json")
        spec.write_text(json.dumps(spec_of(8)))
        Path(tmp, "sitecustomize.py").write_text(_SITE.format(path=nvml_patched.__file__))
        state = Path(tmp, "state")
        env = {**os.environ, "PYTHONPATH": tmp, nvml_patched.ENV: str(spec), "TERM": "xterm-256color"}
        env["GPUTUI_STATE_DIR"] = str(state)
        script = Path(sys.executable).with_name("gputui")
        gputui = [str(script)] if script.is_file() else [sys.executable, "-m", "gputui"]
        cases = {
            "gputui (dashboard, NVML)": [*gputui, "nvml", "--interval", "1"],
            "nvitop (monitor)": [nvitop, "--interval", "1"],
        }
        got: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(2):
            for name, cmd in cases.items():
                got[name].append(one(cmd, env, args.seconds, size))
    print(f"RSS after {args.seconds:g} s on 8 fake GPUs at {args.size} (the higher of two runs):")
    for name, xs in got.items():
        print(f"  {name:28s} {max(xs):6.1f} MiB   ({', '.join(f'{x:.1f}' for x in xs)})")
    g, n = max(got["gputui (dashboard, NVML)"]), max(got["nvitop (monitor)"])
    print(f"  gputui / nvitop: {g / n:.2f}")
    return 0
