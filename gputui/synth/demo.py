"""The bundled demo recording: ``python -m gputui.synth.demo [OUT]`` regenerates it byte for byte.

Ten minutes at 1 Hz of a four-node synthetic cluster that shows every granularity gputui knows:
whole GPUs, MIG instances, a GPU instance split into compute instances, and MPS clients.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from gputui.synth.demo_nodes import DemoNodes
from gputui.synth.timeline import DEFAULT_START, Step, run_nodes, write_recording

DEMO_SEED = 20261102
DEMO_FRAMES = 601  # 0 s to 600 s inclusive: the full ten minutes
DEMO_SOURCE = "demo recording (synthetic)"
DEFAULT_OUT = Path("fixtures/demo/demo-cluster.gtrec")


def demo_steps(seed: int = DEMO_SEED) -> Iterator[Step]:
    """The demo's frames and events, second by second."""
    nodes = DemoNodes(seed, DEFAULT_START).all()
    return run_nodes(nodes, DEMO_FRAMES, DEFAULT_START, DEMO_SOURCE)


def demo_meta(seed: int = DEMO_SEED) -> dict[str, object]:
    """The recording header: what made the file, never when (so regenerating gives the same bytes)."""
    return {
        "synthetic": True,
        "generator": "python -m gputui.synth.demo",
        "seed": seed,
        "description": "Synthetic four-node cluster: whole GPUs, MIG, split compute instances, MPS",
    }


def write_demo(path: str | Path = DEFAULT_OUT, seed: int = DEMO_SEED) -> tuple[int, int]:
    """Write the demo recording; returns (frames, events)."""
    return write_recording(path, demo_steps(seed), demo_meta(seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gputui.synth.demo", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help=f"random seed (default {DEMO_SEED})")
    args = parser.parse_args(argv)
    if not args.out.parent.is_dir():
        print(f"{parser.prog}: no such directory: {args.out.parent}", file=sys.stderr)
        return 2
    frames, events = write_demo(args.out, args.seed)
    size = args.out.stat().st_size
    print(f"{args.out}: {frames} frames, {events} events, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
