"""``python -m gputui.jobs.runners.wrapper JOBDIR -- ARGV...``: run one local job and leave its exit in JOBDIR.

The wrapper leads the job's process group. It first writes ``wrapper.json`` (its pid and start time), runs the
command by argv, waits, and writes ``exit.json`` (exit code, signal, end time) atomically, so the job's end is
known even if the gputui that started it died meanwhile. Signals to the group reach the command directly; the
wrapper only notes them and keeps waiting, so that it can record how the command ended.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gputui.jobs.procstat import start_ticks
from gputui.statedir import write_private_file

WRAPPER_FILE = "wrapper.json"
EXIT_FILE = "exit.json"


def write_exit(job_dir: Path, code: int, sig: int | None, error: str | None = None) -> None:
    record = {"exit_code": code, "signal": sig, "end_time": time.time(), "error": error}
    write_private_file(job_dir / EXIT_FILE, json.dumps(record).encode())


def read_json(path: Path) -> dict | None:
    """A small JSON file the wrapper wrote, or None when missing or unreadable (written atomically, never torn)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def run(job_dir: Path, argv: list[str]) -> int:
    pid = os.getpid()
    write_private_file(job_dir / WRAPPER_FILE, json.dumps({"pid": pid, "start": start_ticks(pid)}).encode())
    received: list[int] = []
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # a Python handler (not SIG_IGN) so that the command starts with the default disposition again
        signal.signal(s, lambda signum, _frame: received.append(signum))
    try:
        child = subprocess.Popen(argv)
    except OSError as e:
        code = 127 if isinstance(e, FileNotFoundError) else 126
        message = f"cannot run {argv[0]}: {e.strerror or e}"
        print(f"gputui: {message}", file=sys.stderr, flush=True)
        write_exit(job_dir, code, None, message)
        return code
    rc = child.wait()
    sig = -rc if rc < 0 else None
    code = 128 + sig if sig is not None else rc
    write_exit(job_dir, code, sig)
    return code


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3 or args[1] != "--":
        print("usage: python -m gputui.jobs.runners.wrapper JOBDIR -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    return run(Path(args[0]), args[2:])


if __name__ == "__main__":
    sys.exit(main())
