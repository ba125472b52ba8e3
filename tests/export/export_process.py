"""`gputui export` as a separate process on a free loopback port, for the end-to-end tests."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from services import free_port, wait_for


@contextmanager
def running_export(state_dir: Path, *args: str, port: int | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """Start ``gputui export ARGS --listen 127.0.0.1:PORT``; yields the /metrics URL and the process."""
    port = port or free_port()
    cmd: Sequence[str] = [sys.executable, "-m", "gputui", "export", *args, "--listen", f"127.0.0.1:{port}"]
    env = {**os.environ, "GPUTUI_STATE_DIR": str(state_dir)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    url = f"http://127.0.0.1:{port}/metrics"

    def up() -> bool | None:
        if proc.poll() is not None:
            raise AssertionError(f"gputui export exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return True if r.status == 200 else None
        except (urllib.error.URLError, ConnectionError):
            return None

    try:
        wait_for("gputui export to answer", up, timeout=60)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
