"""`gputui snapshot` against `nvitop --once` on the same fake NVML: whole processes, interleaved runs.

python -m gputui.bench oneshot [--runs 21] [--nvitop PATH] [--gpus 8] [--instructions]

Both commands see the same 8 GPUs (the demo's whole A100s, cycled; their processes mapped onto live
PIDs so that user and command come from /proc): gputui.sources.nvml_patched, loaded from its file by a
sitecustomize on PYTHONPATH, patches pynvml in each process before the tool starts, in its older-driver
shape (real pynvml code over a library without the ``_v3`` process lists). The fake and pynvml's import
are in both, and in the "fake floor" row. nvitop is not a dependency of gputui: install it apart, e.g.
``python3 -m venv .venv-nvitop && .venv-nvitop/bin/pip install nvitop``; it is looked for with --nvitop,
then on PATH, then in ./.venv-nvitop. Each round runs every case once, in a rotated order.

``--instructions`` then runs each case once more under ``valgrind --tool=callgrind`` and reports the instructions
of the whole process (start-up, imports, the poll, the output): a count that the machine's load does not move,
though it grows with the number of processes on the machine (gputui looks for MPS daemons in /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from gputui.sources import nvml_patched

_SITE = """import importlib.util
_spec = importlib.util.spec_from_file_location("_gputui_fake_pynvml", {path!r})
_fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fake)
_fake.install_from_env()
"""
_MODES = {"Default": 0, "Exclusive_Thread": 1, "Prohibited": 2, "Exclusive_Process": 3}


def _live_pids(n: int) -> list[int]:
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    return (pids * (n // max(1, len(pids)) + 1))[:n] if pids else [os.getpid()] * n


def spec_of(gpus: int) -> dict:
    """The fake's GPUs: the demo's whole (non-MIG) GPUs, cycled to ``gpus``, at the middle frame."""
    from gputui.resources import demo_recording
    from gputui.sources.recording import RecordingReader

    r = RecordingReader(demo_recording())
    frame = r.frame(r.frame_count // 2)
    r.close()
    pool = [g for n in frame.nodes for g in n.gpus if not g.mig_mode_current]
    chosen = [replace(pool[i % len(pool)], index=i) for i in range(gpus)]
    pids = iter(_live_pids(sum(len(g.processes) for g in chosen)))
    out = []
    for g in chosen:
        types = {"C": "C", "G": "G", "C+G": "CG", "M": "M", "M+C": "MC"}
        out.append(
            dict(
                name=g.name,
                uuid=g.uuid,
                pci_bus_id=g.pci_bus_id,
                memory_total=g.memory_total_mib,
                memory_used=g.memory_used_mib,
                util_gpu=g.utilization_gpu,
                util_memory=g.utilization_memory,
                temperature=g.temperature_c,
                power_mw=None if g.power_draw_w is None else int(g.power_draw_w * 1000),
                power_limit_mw=None if g.power_limit_w is None else int(g.power_limit_w * 1000),
                fan=g.fan_percent,
                clock_graphics=g.clock_graphics_mhz,
                clock_sm=g.clock_sm_mhz,
                clock_memory=g.clock_memory_mhz,
                pstate=None if g.performance_state is None else int(g.performance_state[1:]),
                compute_mode=_MODES.get(g.compute_mode or ""),
                persistence=None if g.persistence_mode is None else int(g.persistence_mode),
                processes=[
                    dict(pid=next(pids), used_memory=p.used_memory_mib or 0, type=types.get(p.type or "C", "C"))
                    for p in g.processes
                ],
            )
        )
    return dict(driver="470.57.02", cuda=11040, shape="driver", gpus=out)


def find_nvitop(given: str | None) -> str | None:
    for cand in (given, shutil.which("nvitop"), str(Path(".venv-nvitop/bin/nvitop").resolve())):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def _gputui_cmd() -> list[str]:
    script = Path(sys.executable).with_name("gputui")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "gputui"]


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of the process and its children) of one run."""
    if cmd[1:] == ["-c", "pass"]:
        env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", nvml_patched.ENV)}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"oneshot: {cmd[0]} failed ({done.returncode}): {done.stderr.decode()[-300:]}")
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _instructions(cmd: list[str], env: dict[str, str]) -> int:
    """The instructions valgrind counts for one whole run of ``cmd``."""
    if cmd[1:] == ["-c", "pass"]:
        env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", nvml_patched.ENV)}
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd]
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"oneshot: valgrind could not count {cmd[0]}: {done.stderr[-300:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m gputui.bench oneshot")
    ap.add_argument("--runs", type=int, default=21, help="rounds, each running every case once (default 21)")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--nvitop", metavar="PATH", help="the nvitop executable (default: PATH, then ./.venv-nvitop)")
    ap.add_argument("--instructions", action="store_true", help="also count each case's instructions (valgrind)")
    args = ap.parse_args(argv)
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("oneshot: --instructions needs valgrind (apt-get install valgrind)")
    nvitop = find_nvitop(args.nvitop)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="gputui-oneshot-") as tmp:
        spec_path = Path(tmp, "spec.json")
        spec_path.write_text(json.dumps(spec_of(args.gpus)))
        Path(tmp, "sitecustomize.py").write_text(_SITE.format(path=nvml_patched.__file__))
        env = {**os.environ, "PYTHONPATH": tmp, nvml_patched.ENV: str(spec_path), "COLUMNS": "160"}
        env.pop("PYTHONSTARTUP", None)
        # Bytecode as an installed package has it (pip writes nvitop's at install): the warm-up round writes
        # gputui's if it is missing. With PYTHONDONTWRITEBYTECODE set, every gputui run would compile its
        # sources again while nvitop's bytecode is cached: not like with like.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cases = {
            "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
            "fake floor (interpreter + pynvml + the fake)": [sys.executable, "-c", "import pynvml"],
            "gputui snapshot": [*_gputui_cmd(), "snapshot"],
        }
        if nvitop:
            cases["nvitop --once"] = [nvitop, "--once"]
        times: dict[str, list[float]] = {k: [] for k in cases}
        cpu: dict[str, list[float]] = {k: [] for k in cases}
        names = list(cases)
        for name in names:  # warm the page cache and the bytecode caches; not counted
            _run(cases[name], env)
        for r in range(args.runs):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                wall, used = _run(cases[name], env)
                times[name].append(wall)
                cpu[name].append(used)
        if args.instructions:
            counts = {name: _instructions(cases[name], env) for name in names}
    print(f"{args.gpus} fake GPUs (older-driver shape), {args.runs} interleaved rounds")
    print(f"  {'':46s} {'wall: median':>14s} {'min':>9s} {'CPU: median':>14s}")
    for name, xs in times.items():
        med, low, c = statistics.median(xs) * 1000, min(xs) * 1000, statistics.median(cpu[name]) * 1000
        print(f"  {name:46s} {med:11.1f} ms {low:6.1f} ms {c:11.1f} ms")
    for name, count in counts.items():
        print(f"  {name:46s} {count / 1e6:11.1f} M instructions")
    if not nvitop:
        print("  nvitop not found: install it apart (see the module's docstring) for the ratio")
        return 0
    for what, d in (("wall", times), ("CPU", cpu)):
        g, n = d["gputui snapshot"], d["nvitop --once"]
        paired = statistics.median(a / b for a, b in zip(g, n, strict=True))
        print(
            f"gputui / nvitop, {what}: ratio of medians {statistics.median(g) / statistics.median(n):.2f}, "
            f"median of the {len(g)} paired ratios {paired:.2f}"
        )
    if counts:
        print(f"gputui / nvitop, instructions: {counts['gputui snapshot'] / counts['nvitop --once']:.2f}")
    return 0
