"""Read-only check of gputui's GPM figures on a machine with NVIDIA GPUs: run it there, keep its output.

    python bench/gpm_check.py [--seconds 2] [--polls 50]

What it does, all of it reading:
1. lists each GPU with its MIG mode and whether NVML says it has GPM (nvmlGpmQueryDeviceSupport);
2. polls gputui's NVML source twice, ``--seconds`` apart, and prints each GPU's and each MIG instance's
   SM / occupancy / DRAM / tensor activity (or the reason they are N/A);
3. prints nvidia-smi's own view beside it: ``--query-gpu`` utilisation, and ``dmon --gpm-metrics`` where the
   driver's nvidia-smi has it (GPM ids 2 SM, 3 occupancy, 10 DRAM, 5 tensor);
4. times a poll with GPM on against GPM off, interleaved (``python -m gputui.bench nvml_poll --gpm``).

It never changes the GPUs: no MIG mode, instance, MPS, clock, power or persistence setting is touched, and no
process is started on a GPU. Without a driver it says so and exits 0.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time

NVIDIA_SMI_QUERIES = (
    ["--query-gpu=index,name,mig.mode.current,utilization.gpu,utilization.memory", "--format=csv"],
    ["dmon", "--gpm-metrics", "2,3,10,5", "-c", "1"],
)


def _nvidia_smi(args: list[str]) -> str:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return "nvidia-smi: not found"
    try:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"nvidia-smi {' '.join(args)}: {e}"
    return (done.stdout or "") + (done.stderr or "")


def _fmt(a: object) -> str:
    if a is None:
        return "N/A"
    return "SM {sm_active}%  occupancy {sm_occupancy}%  DRAM {dram_active}%  tensor {tensor_active}%".format(
        **{k: ("N/A" if getattr(a, k) is None else getattr(a, k)) for k in a.__slots__}  # type: ignore[attr-defined]
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="between the two polls (default 2)")
    ap.add_argument("--polls", type=int, default=50, help="for the GPM on / off timing (default 50 each)")
    args = ap.parse_args(argv)
    from gputui.core.errors import NvmlUnavailable
    from gputui.sources.nvml import NvmlSource

    try:
        src = NvmlSource()
    except NvmlUnavailable as e:
        print(f"gpm_check: no NVIDIA driver answered ({e}); nothing checked")
        return 0
    nvml = src.nvml
    try:
        print(f"driver {src.driver_version}, CUDA {src.cuda_version}")
        for i in range(nvml.nvmlDeviceGetCount()):
            h = nvml.nvmlDeviceGetHandleByIndex(i)
            name = nvml.nvmlDeviceGetName(h)
            try:
                mig = nvml.nvmlDeviceGetMigMode(h)[0]
            except Exception as e:  # noqa: BLE001 - a query a GPU may refuse; print it and carry on
                mig = f"N/A ({e})"
            try:
                gpm = bool(nvml.nvmlGpmQueryDeviceSupport(h).isSupportedDevice)
            except Exception as e:  # noqa: BLE001
                gpm = f"N/A ({e})"
            print(f"GPU {i}: {name}  MIG mode {mig}  GPM supported {gpm}")
        src.poll()
        time.sleep(max(0.2, args.seconds))
        snap = src.poll()
    finally:
        src.close()
    print(f"\ngputui's figures over {args.seconds:g} s (of each MIG instance's own slices):")
    for g in snap.nodes[0].gpus:
        print(f"GPU {g.index} {g.name}: {_fmt(g.activity)}" + (f"  [N/A: {g.activity_na}]" if g.activity_na else ""))
        for gi in g.gpu_instances:
            print(f"  GI {gi.gi_id} {gi.profile}: {_fmt(gi.activity)}")
        for c in g.mps.clients if g.mps else ():
            print(f"  MPS client {c.pid}: SM {('N/A' if c.sm_util is None else c.sm_util)}%")
    print("\nnvidia-smi's view:")
    for q in NVIDIA_SMI_QUERIES:
        print(f"$ nvidia-smi {' '.join(q)}")
        print(_nvidia_smi(q).rstrip())
    print()
    from gputui.bench.sources.nvml_poll import main as bench

    return bench(["--gpm", "--polls", str(args.polls)])


if __name__ == "__main__":
    sys.exit(main())
