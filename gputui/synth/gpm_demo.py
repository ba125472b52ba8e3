"""A synthetic H100 MIG recording with GPM activity per instance: ``python -m gputui.synth.gpm_demo [OUT]``
regenerates fixtures/recording/h100-mig-gpm.gtrec byte for byte.

Fifteen minutes at 1 Hz of one node, hopper01, with two H100 80GB HBM3. GPU 0 is in MIG mode: a 3g.40gb held
by job 63001 (bob), which loads a small model (about 9 GiB) and then sits at 0-3 % of its SMs (oversized, and
idle); a 2g.20gb where alice trains flat out; a 1g.10gb where carol runs inference at about 60 %; a 1g.10gb
free. GPU 1 (MIG off) is held whole by job 63004 (dave), busy. Every GPU reports GPM figures (Hopper has GPM).
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
from gputui.synth.node_sim import NodeSim
from gputui.synth.timeline import DEFAULT_START, Step, run_nodes, write_recording

GPM_SEED = 20261203
GPM_FRAMES = 901  # 0 s to 900 s
GPM_SOURCE = "H100 MIG GPM fixture (synthetic)"
DEFAULT_OUT = Path("fixtures/recording/h100-mig-gpm.gtrec")

H100 = "NVIDIA H100 80GB HBM3"
TRAIN = LoadProfile(mean_util=93, mem_mib=17_000, jitter=2.5, ramp_s=20)
INFER = LoadProfile(mean_util=60, mem_mib=7_000, jitter=4.0, ramp_s=10, mem_growth=0.0)
SMALL = LoadProfile(mean_util=1.0, mem_mib=8_900, jitter=0.3, ramp_s=25, mem_growth=0.0)
WHOLE = LoadProfile(mean_util=88, mem_mib=60_000, jitter=3.0, ramp_s=30)


def _nodes(seed: int) -> list[NodeSim]:
    mig = make_gpu(seed, "hopper01", 0, H100, ("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"))
    whole = make_gpu(seed, "hopper01", 1, H100)
    for g in (mig, whole):
        g.gpm = True
    node = NodeSim("hopper01", [mig, whole], random.Random(f"{seed}:hopper01"), DEFAULT_START, host=host_for(H100, 2))
    gis: dict[str | None, list[int | None]] = {gi.profile: [] for gi in mig.instances or ()}
    for gi in sorted(mig.instances or (), key=lambda g: g.placement_start or 0):
        gis[gi.profile].append(gi.gi_id)
    node.add_job(Job("63001", "bob", "python serve_small.py --model 7b-int4", (Target(0, gis["3g.40gb"][0], 0),),
                     SMALL, 15, None, 5))  # fmt: skip
    node.add_job(Job("63002", "alice", "python train.py --model vit-b", (Target(0, gis["2g.20gb"][0], 0),), TRAIN,
                     -900))  # fmt: skip
    node.add_job(Job("63003", "carol", "python infer.py --batch 16", (Target(0, gis["1g.10gb"][0], 0),), INFER,
                     30, None, 20))  # fmt: skip
    node.add_job(Job("63004", "dave", "torchrun train_llm.py", (Target(1),), WHOLE, -1200))
    node.warm_up()
    return [node]


def gpm_steps(seed: int = GPM_SEED) -> Iterator[Step]:
    return run_nodes(_nodes(seed), GPM_FRAMES, DEFAULT_START, GPM_SOURCE)


def gpm_meta(seed: int = GPM_SEED) -> dict[str, object]:
    return {
        "synthetic": True,
        "generator": "python -m gputui.synth.gpm_demo",
        "seed": seed,
        "description": "Synthetic H100 node in MIG mode with GPM activity per instance, one oversized and idle",
    }


def write_gpm_demo(path: str | Path = DEFAULT_OUT, seed: int = GPM_SEED) -> tuple[int, int]:
    """Write the fixture; returns (frames, events)."""
    return write_recording(path, gpm_steps(seed), gpm_meta(seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gputui.synth.gpm_demo", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if not args.out.parent.is_dir():
        print(f"{parser.prog}: no such directory: {args.out.parent}", file=sys.stderr)
        return 2
    frames, events = write_gpm_demo(args.out)
    print(f"{args.out}: {frames} frames, {events} events, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
