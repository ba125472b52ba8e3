"""fgd-auto (the default): ``fgd-idle`` where the expected workload looks like those it wins on, else exactly FGD.

``fgd-idle`` is ``fgd-cpu`` (:mod:`fgd_cpu`: FGD's gradient over a CPU-aware F with a stranding term and term 3,
the eventual waste of partly used GPUs) with term 3's table giving an idle GPU the value of one with 999 free
(:func:`slivers.correction`, ``idle_priced``): as ``fgd-cpu`` has it, opening an idle GPU for a share lowers F by
about 450, and where the shares to fill the holes do not come (CPU-bound and GPU-model-constrained openb workloads)
``fgd-cpu`` loses 2-6 points to FGD. Two features of the expected workload (the typical shapes FGD's F reads,
known before the first pod is placed) decide where the inner policy is trusted:

- ``cpu_per_gpu``: the CPU thousandths the workload asks per GPU it asks (CPU-only pods included), and
- ``spec_share``: the share of its GPU pods that name GPU models.

fgd-auto is :data:`INNER` when both are at most :data:`GATE`'s thresholds, else exactly FGD. The thresholds are
decision stumps fitted by :func:`fit_gate` on measured workloads (midway between the largest feature of a workload
the inner policy wins on and the smallest of one it loses on; the largest winner where none loses above it, so that
the gate does not extrapolate). The constants are the fit on all seventeen published openb workloads; the scores
reported in docs/simulate.md are leave-one-family-out (each family scored under the gate fitted on the other
families: ``python -m gputui.bench fgd``).

In the live scheduler (:class:`FgdAuto`, ``gputui plan``'s default) the features are those of
``SchedulerConfig.workload`` (CPU-only requests included); with none configured the workload is fgd-cpu's
(:data:`fgd_cpu.OPENB_DEFAULT`, inside the gate), and the measure is fgd-idle's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gputui.core.scheduler.policies import fgd, fgd_cpu
from gputui.core.scheduler.policies.frag import Fragmenter, TargetShape
from gputui.core.scheduler.policies.shapes import MILLI, NodeFree, PodShape


class Gate(NamedTuple):
    cpu_per_gpu: float  # the most CPU thousandths per GPU asked at which the inner policy is used
    spec_share: float  # the largest share of model-constrained GPU pods at which it is used


#: the policy fgd-auto runs inside the gate (a simulator name)
INNER = "fgd-idle"

#: fitted on the seventeen openb workloads (``python -m gputui.bench fgd`` prints the fit and checks it is this)
GATE = Gate(cpu_per_gpu=17409.4, spec_share=0.3099)


class Features(NamedTuple):
    cpu_per_gpu: float
    spec_share: float


def features(shapes: Sequence[TargetShape]) -> Features:
    """The two features of an expected workload (see the module docstring); a workload without GPU asks none."""
    gpu = sum(m.freq * m.num_gpu * m.gpu_milli for m in shapes if m.gpu_milli) / MILLI
    cpu = sum(m.freq * m.cpu_milli for m in shapes)
    gpu_pods = sum(m.freq for m in shapes if m.gpu_milli and m.num_gpu)
    spec = sum(m.freq for m in shapes if m.gpu_milli and m.num_gpu and m.gpu_spec)
    return Features(cpu / gpu if gpu else 0.0, spec / gpu_pods if gpu_pods else 0.0)


def gated_on(f: Features, gate: Gate = GATE) -> bool:
    return f.cpu_per_gpu <= gate.cpu_per_gpu and f.spec_share <= gate.spec_share


def _stump(points: list[tuple[float, bool]]) -> float:
    """The threshold on one feature: midway between the largest winner and the smallest loser above it, else the
    largest winner (no extrapolation past what was measured); -inf where nothing wins."""
    wins = [x for x, w in points if w]
    if not wins:
        return float("-inf")
    top = max(wins)
    above = [x for x, w in points if not w and x > top]
    return (top + min(above)) / 2 if above else top


def fit_gate(measured: Sequence[tuple[Features, float]]) -> Gate:
    """The gate fitted on workloads given as (features, the inner policy's mean minus FGD's): first the
    model-constraint threshold over all of them, then the CPU threshold over those that pass it. A workload counts
    as a win when the inner policy is at or above FGD."""
    spec = _stump([(f.spec_share, d >= 0) for f, d in measured])
    passing = [(f.cpu_per_gpu, d >= 0) for f, d in measured if f.spec_share <= spec]
    return Gate(_stump(passing), spec)


class FgdAutoTrace:
    name = "fgd-auto"
    uses_affinity = False
    randomised = False

    def __init__(self, frag: Fragmenter, gate: Gate = GATE) -> None:
        self.features = features(frag.shapes)
        self.on = gated_on(self.features, gate)
        self.inner = fgd_cpu.FgdCpuTrace(frag, idle_priced=True) if self.on else fgd.FgdTrace(frag)
        self._evaluate = self.inner.evaluate

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return self._evaluate(node, pod)


def workload_features(workload: tuple) -> Features:
    """:func:`features` of a configured workload ((weight, JobRequest) pairs), CPU-only requests included."""
    cpu = gpu = 0.0
    for weight, req in workload:
        if weight <= 0:
            continue
        k = req.gpus_per_node or req.gpus or (1 if req.gpu_milli else 0)
        cpu += weight * (req.cpu_milli or (req.cpus_per_gpu or 0) * k * 1000 or (req.cpus_per_task or 0) * 1000)
        if k:
            gpu += weight * k * (req.gpu_milli or MILLI) / MILLI
    return Features(cpu / gpu if gpu else 0.0, 0.0)  # the live queue's requests name no GPU models


class FgdAuto(fgd_cpu.FgdCpu):
    """The live-queue fgd-auto: fgd-cpu's node order with fgd-idle's F where the configured workload is inside
    :data:`GATE`, FGD's own F where it is not."""

    name = "fgd-auto"

    def _frag(self, workload: tuple) -> Fragmenter:
        f = self._frags.get(workload)
        if f is None or len(f._memo) > self._MEMO_LIMIT:
            shapes = (fgd_cpu.workload_shapes(workload) if workload else ()) or fgd_cpu.shapes_of(fgd_cpu.OPENB_DEFAULT)
            on = not workload or gated_on(workload_features(workload))
            f = (Fragmenter(shapes, cpu_aware=True, stranding=fgd_cpu.STRANDING, slivers=True, idle_priced=True) if on
                 else Fragmenter(shapes))  # fmt: skip
            self._frags[workload] = f
        return f
