"""``python -m gputui.jobs.runners.wrapper JOBDIR -- ARGV...``: run one local job and leave its exit in JOBDIR.

The wrapper leads the job's process group. It first writes ``wrapper.json`` (its pid and start time), runs the
command by argv, waits, and writes ``exit.json`` (exit code, signal, end time) atomically, so the job's end is
known even if the gputui that started it died meanwhile. Signals to the group reach the command directly; the
wrapper only notes them and keeps waiting, so that it can record how the command ended.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gputui.jobs.runners.procstat import start_ticks
from gputui.statedir import write_private_file

WRAPPER_FILE = "wrapper.json"
EXIT_FILE = "exit.json"
RESERVE_FILE = "exit.reserve"  # written before the job runs: room for its exit on a disk that fills meanwhile
RESERVE_BYTES = 1024


def reserve_exit(job_dir: Path) -> None:
    """Claim the disk space the exit record needs while there is some (best effort)."""
    with contextlib.suppress(OSError):
        write_private_file(job_dir / RESERVE_FILE, b" " * RESERVE_BYTES)


def write_exit(job_dir: Path, code: int, sig: int | None, error: str | None = None) -> None:
    """Record the exit atomically; on a full disk, into the space reserved at the start (written in place,
    then renamed: neither needs a new block), so that a successful job is not recorded as failed."""
    record = {"exit_code": code, "signal": sig, "end_time": time.time(), "error": error}
    data = json.dumps(record).encode()
    try:
        write_private_file(job_dir / EXIT_FILE, data)
        (job_dir / RESERVE_FILE).unlink(missing_ok=True)
        return
    except OSError:
        if len(data) > RESERVE_BYTES:
            raise
    with open(job_dir / RESERVE_FILE, "r+b") as f:
        f.write(data.ljust(RESERVE_BYTES))
        f.truncate(len(data))
        f.flush()
        os.fsync(f.fileno())
    os.replace(job_dir / RESERVE_FILE, job_dir / EXIT_FILE)


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
    reserve_exit(job_dir)
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
    with contextlib.suppress(OSError):  # not even the reserve: the runner says the state is unknown
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
