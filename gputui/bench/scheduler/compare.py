"""``--compare REF``: the same benchmark on an older commit and on this tree, run in turn, as ratios.

REF's files are taken with ``git archive`` into a temporary folder (the repository's worktrees and index are not
touched), and both sides run the timed loop of *this* tree (:mod:`gputui.bench.scheduler.loop`, loaded by path)
over their own scheduler and their own request stream, each in a fresh interpreter, alternating which goes first.
Both sides' decisions are hashed, so a speed-up that changed what the scheduler decides shows as "differ".
With ``--instructions`` each side also runs once under ``valgrind --tool=callgrind``, counting only the timed steps:
the same count on every run, whatever else the machine does.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

LOOP = Path(__file__).with_name("loop.py")
ROOT = Path(__file__).resolve().parents[3]  # the checkout this package lives in


class CompareError(Exception):
    """Something the user can fix: no git checkout, an unknown commit, no valgrind."""


def _git(*args: str) -> bytes:
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, check=True).stdout
    except FileNotFoundError as e:
        raise CompareError("git is not installed") from e
    except subprocess.CalledProcessError as e:
        raise CompareError(f"git {args[0]}: {e.stderr.decode(errors='replace').strip().splitlines()[-1:]}") from e


def resolve(ref: str) -> str:
    """The full commit id of ``ref`` in this checkout."""
    if not (ROOT / ".git").exists():
        raise CompareError(f"{ROOT} is not a git checkout: --compare needs one")
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except CompareError:
        raise CompareError(f"--compare: no commit {ref!r} in {ROOT}") from None


def export(commit: str, into: Path) -> Path:
    """REF's ``gputui`` package, unpacked under ``into``."""
    data = _git("archive", "--format=tar", commit, "gputui")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python before 3.11.4; the archive is this repository's own
            tar.extractall(into)  # noqa: S202
    return into


def run_one(root: Path, nodes: int, decisions: int, seed: int, policy: str, stream: str,
            counted: bool = False) -> dict[str, Any]:  # fmt: skip
    """One run of the loop in a fresh interpreter with ``root``'s gputui first on the path."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    code = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"
    argv = [sys.executable, "-c", code, str(LOOP), str(nodes), str(decisions), str(seed), policy, stream]
    if counted:
        out = Path(tempfile.mkstemp(prefix="gputui-callgrind.")[1])
        argv = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=_PyEval_CallTracing",
                f"--callgrind-out-file={out}", *argv, "counted"]  # fmt: skip
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    finally:
        if counted:
            out.unlink(missing_ok=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise CompareError(f"a run failed: {tail}")
    got = json.loads(lines[-1])
    if "error" in got:
        raise CompareError(got["error"])
    if counted:
        m = re.search(r"Collected : (\d+)", proc.stderr)
        if m is None:
            raise CompareError("valgrind did not report an instruction count")
        got["instructions"] = int(m.group(1))
    return got


def compare(ref: str, sizes: list[int], decisions: int, seed: int, policy: str, stream: str, rounds: int,
            instructions: bool) -> int:  # fmt: skip
    if instructions and shutil.which("valgrind") is None:
        raise CompareError("--instructions needs valgrind (apt-get install valgrind)")
    commit = resolve(ref)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the temporary folder goes too
    with tempfile.TemporaryDirectory(prefix="gputui-ref.") as tmp:
        sides = {"ref": export(commit, Path(tmp)), "this": ROOT}
        print(f"{stream} stream, policy {policy}, {decisions} timed decisions, {rounds} interleaved rounds; "
              f"ref {ref} = {commit[:10]}, this = {ROOT} as it is now; us: median CPU time per decision, ratio: "
              "this / ref (range: of each round's pair), wall: the same in elapsed time")  # fmt: skip
        head = f"{'nodes':>6} {'ref us':>8} {'this us':>8} {'ratio':>6} {'range':>11} {'wall':>6}  decisions"
        print(head + ("  instructions/decision (ref, this, ratio)" if instructions else ""))
        for n in sizes:
            cpu: dict[str, list[float]] = {"ref": [], "this": []}
            wall: dict[str, list[float]] = {"ref": [], "this": []}
            seen: dict[str, dict[str, Any]] = {}
            for r in range(rounds):
                for side in ("ref", "this") if r % 2 == 0 else ("this", "ref"):
                    try:
                        got = run_one(sides[side], n, decisions, seed, policy, stream)
                    except CompareError as e:
                        raise CompareError(f"{ref if side == 'ref' else 'this tree'}: {e}") from None
                    cpu[side].append(got["cpu_us"])
                    wall[side].append(got["us"])
                    seen[side] = got
            ratios = sorted(t / f for t, f in zip(cpu["this"], cpu["ref"], strict=True))
            mid = {s: statistics.median(v) for s, v in cpu.items()}
            same = "identical" if seen["ref"]["digest"] == seen["this"]["digest"] else "DIFFER"
            wall_ratio = statistics.median(wall["this"]) / statistics.median(wall["ref"])
            line = (f"{n:>6} {mid['ref']:>8.1f} {mid['this']:>8.1f} {mid['this'] / mid['ref']:>5.2f}x "
                    f"{ratios[0]:>5.2f}-{ratios[-1]:.2f} {wall_ratio:>5.2f}x  {same}")  # fmt: skip
            if instructions:
                per = {s: run_one(sides[s], n, decisions, seed, policy, stream, True)["instructions"] / decisions
                       for s in ("ref", "this")}  # fmt: skip
                line += f"  {per['ref']:,.0f} {per['this']:,.0f} {per['this'] / per['ref']:.3f}x"
            print(line, flush=True)
    return 0
