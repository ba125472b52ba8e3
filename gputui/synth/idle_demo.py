"""A small synthetic recording for the idle radar: ``python -m gputui.synth.idle_demo [OUT]`` regenerates
fixtures/recording/idle-held.gtrec byte for byte.

Fifteen minutes at 1 Hz of two nodes. gpu01 (four A100-40GB): GPU 0 trains flat out; GPU 1 is held by job
51002 (bob), which loads its model, then waits at 0 % holding 20 GiB; GPU 2 runs carol's notebook kernel,
started before the recording (no job event: only its process says who holds it), at 0-2 %; GPU 3 is free.
gpu02 (two A100-80GB): GPU 0 in MIG mode with an instance held by a job (MIG reports no utilisation);
GPU 1 under MPS with one client (job 51004) that sits at 0 %.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from gputui.synth.gpu_sim import make_gpu
from gputui.synth.host_specs import host_for
from gputui.synth.jobs import Job, Target
from gputui.synth.load import LoadProfile
from gputui.synth.node_sim import MpsState, NodeSim
from gputui.synth.timeline import DEFAULT_START, Step, run_nodes, write_recording

IDLE_SEED = 20261201
IDLE_FRAMES = 901  # 0 s to 900 s
IDLE_SOURCE = "idle radar fixture (synthetic)"
DEFAULT_OUT = Path("fixtures/recording/idle-held.gtrec")

A100_40 = "NVIDIA A100-SXM4-40GB"
A100_80 = "NVIDIA A100-SXM4-80GB"
BUSY = LoadProfile(mean_util=92, mem_mib=30_000, jitter=3.0, ramp_s=20)
STUCK = LoadProfile(mean_util=0, mem_mib=20_480, jitter=0.0, ramp_s=12, mem_growth=0.0)
NOTEBOOK = LoadProfile(mean_util=1, mem_mib=6_144, jitter=0.4, ramp_s=5, mem_growth=0.0)
QUIET_MPS = LoadProfile(mean_util=0, mem_mib=3_000, jitter=0.0, ramp_s=8, mem_growth=0.0)


def _nodes(seed: int) -> list[NodeSim]:
    g1 = [make_gpu(seed, "gpu01", i, A100_40) for i in range(4)]
    n1 = NodeSim("gpu01", g1, random.Random(f"{seed}:gpu01"), DEFAULT_START, host=host_for(A100_40, 4))
    n1.add_job(Job("51001", "alice", "python train.py --model resnet50", (Target(0),), BUSY, -1800))
    n1.add_job(Job("51002", "bob", "python train_llm.py --config big.yaml", (Target(1),), STUCK, 30, None, 26))
    n1.add_job(Job("51000", "carol", "python -m ipykernel_launcher", (Target(2),), NOTEBOOK, -600))
    mig = make_gpu(seed, "gpu02", 0, A100_80, ("3g.40gb", "3g.40gb"))
    mps_gpu = make_gpu(seed, "gpu02", 1, A100_80, compute_mode="Exclusive_Process")
    n2 = NodeSim(
        "gpu02", [mig, mps_gpu], random.Random(f"{seed}:gpu02"), DEFAULT_START, mps=MpsState((1,), "svc-infer"),
        host=host_for(A100_80, 2),
    )  # fmt: skip
    n2.start_mps_now()
    gi = sorted(mig.instances or (), key=lambda g: g.placement_start or 0)[0].gi_id
    n2.add_job(Job("51003", "dave", "python finetune.py", (Target(0, gi, 0),), BUSY, 40, None, 35))
    n2.add_job(Job("51004", "svc-infer", "python serve.py --port 9000", (Target(1, mps_threads=50),), QUIET_MPS,
                   20, None, 15))  # fmt: skip
    for node in (n1, n2):
        node.warm_up()
    return [n1, n2]


def idle_steps(seed: int = IDLE_SEED) -> Iterator[Step]:
    return run_nodes(_nodes(seed), IDLE_FRAMES, DEFAULT_START, IDLE_SOURCE)


def idle_meta(seed: int = IDLE_SEED) -> dict[str, object]:
    return {
        "synthetic": True,
        "generator": "python -m gputui.synth.idle_demo",
        "seed": seed,
        "description": "Synthetic two-node cluster where jobs hold GPUs and do nothing (the idle radar's fixture)",
    }


def write_idle_demo(path: str | Path = DEFAULT_OUT, seed: int = IDLE_SEED) -> tuple[int, int]:
    """Write the fixture; returns (frames, events)."""
    return write_recording(path, idle_steps(seed), idle_meta(seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gputui.synth.idle_demo", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if not args.out.parent.is_dir():
        print(f"{parser.prog}: no such directory: {args.out.parent}", file=sys.stderr)
        return 2
    frames, events = write_idle_demo(args.out)
    print(f"{args.out}: {frames} frames, {events} events, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
