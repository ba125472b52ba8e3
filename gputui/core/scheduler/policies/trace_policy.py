"""What a trace policy is: a pure scoring function of one feasible node and one pod, and the GPUs it would take.

The simulator (``gputui.core.simulate``) filters nodes with :func:`shapes.fits`, scores every feasible node with
``evaluate``, takes the highest score (ties: the node first in the tie-break order) and the GPUs ``evaluate`` named.
``evaluate`` reads the node's CPUs, GPUs, model and (if ``uses_affinity``) the kinds of pods it holds, never its
memory, so the simulator may remember a score per distinct node state. A ``randomised`` policy has no scores: the
simulator draws a feasible node, and a GPU, from the benchmark's random stream.
"""

from __future__ import annotations

from typing import Protocol

from gputui.core.scheduler.policies.shapes import NodeFree, PodShape


class TracePolicy(Protocol):
    name: str
    uses_affinity: bool
    randomised: bool

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        """(score, GPU indices) for placing ``pod`` on ``node``, which fits; higher scores win."""
        ...
