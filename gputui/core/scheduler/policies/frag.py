"""FGD's fragmentation measure: how much of a node's idle GPU the expected workload could not use.

The expected workload ("typical pods") is the trace's request shapes (CPUs, thousandths per GPU, GPU count, model
list; memory is not part of a shape), most frequent first, as many as cover 95 % of the pods, their frequencies
renormalised to 1. For one shape m, the fragment of node n is all its idle thousandths if m is CPU-only, may not
use n's model, or does not fit (too few GPUs with m's thousandths free, or too few CPUs); else the idle
thousandths on GPUs with less than m's thousandths free. F(n) is the frequency-weighted sum over the shapes.

Sums are taken in the order FGD's simulator takes them (per category, then over categories), so that the integer
truncation of its score sees the same floating-point values.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import NamedTuple

from gputui.core.scheduler.policies.shapes import MILLI, PodShape
from gputui.core.scheduler.policies.slivers import correction, sliver_term

#: FGD's categories of a (node, shape) pair, in the order its simulator sums them: Q1 (lacks GPU and CPU), Q2 (lacks
#: GPU; or the GPUs too small for the shape), Q4 (lacks CPU), XL / XR (CPU-only shapes with and without CPUs to
#: spare), no access (the model is not allowed). Q3, the satisfied part, is not fragment.


class TargetShape(NamedTuple):
    cpu_milli: int
    gpu_milli: int  # per GPU
    num_gpu: int
    gpu_spec: frozenset[str]
    freq: float


def typical_shapes(pods: Iterable[PodShape], coverage_pct: int = 95) -> tuple[TargetShape, ...]:
    """The expected workload of a trace, as FGD's simulator derives it (CPU-only pods included)."""
    counts: Counter[tuple[int, int, int, frozenset[str]]] = Counter()
    for p in pods:
        counts[(p.cpu_milli, p.gpu_milli, p.num_gpu, p.gpu_spec)] += 1
    total = float(sum(counts.values()))
    if not total:
        return ()
    # most frequent first; equal counts in a fixed order (Go's map order is random, and no published figure
    # depends on it)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][2], kv[0][1], kv[0][0], sorted(kv[0][3])))
    expected = coverage_pct * total / 100.0
    cum = 0.0
    chosen = []
    for shape, n in ranked:
        if cum >= expected:
            break
        cum += n
        chosen.append((shape, n / total))
    if len(chosen) == len(ranked):
        return tuple(TargetShape(*s, f) for s, f in chosen)
    scale = cum / total
    return tuple(TargetShape(*s, f / scale) for s, f in chosen)


def fragment(cpu_free: int, gpus: tuple[int, ...], model: str, shapes: tuple[TargetShape, ...]) -> float:
    """F(n): the idle thousandths of GPU on the node that the expected workload could not use, weighted."""
    ordered = sorted(gpus)
    below = [0, *accumulate(ordered)]  # below[i]: the free thousandths of the i emptiest GPUs
    total = below[-1]
    n = len(ordered)
    # one sum per category, each in shape order (see the module docstring); Q3 is not fragment
    q1 = q2 = q4 = xl = xr = na = 0.0
    for cpu, milli, num, spec, freq in shapes:
        if milli == 0:
            if cpu_free >= cpu:
                xl += freq * total
            else:
                xr += freq * total
        elif spec and model not in spec:
            na += freq * total
        else:
            i = bisect_left(ordered, milli)  # GPUs [i:] have at least milli free
            if n - i >= num:
                if cpu_free >= cpu:
                    q2 += freq * below[i]
                else:
                    q4 += freq * total
            elif cpu_free >= cpu:
                q2 += freq * total
            else:
                q1 += freq * total
    return q1 + q2 + q4 + xl + xr + na


class Fragmenter:
    """F(n) for one expected workload, remembered per distinct node state (GPU order does not change F)."""

    __slots__ = ("shapes", "_memo", "_fn")

    def __init__(self, shapes: tuple[TargetShape, ...], cpu_aware: bool = False, stranding: float = 0.0,
                 slivers: bool = False) -> None:  # fmt: skip
        """``cpu_aware``: :func:`fragment_cpu_aware` instead of FGD's F, plus ``stranding`` x :func:`stranded`, plus
        (``slivers``) :func:`slivers.sliver_term`: what partly used GPUs will waste in the end."""
        self.shapes = shapes
        self._memo: dict[tuple, float] = {}
        self._fn: Callable[[int, tuple[int, ...], str, tuple[TargetShape, ...]], float] = (
            fragment_cpu_aware if cpu_aware else fragment
        )
        if not cpu_aware:
            return
        per_gpu = cpu_per_gpu(shapes)
        weight = stranding if per_gpu > 0 else 0.0
        table = correction(shapes) if slivers else None
        if weight or table:

            def fn(cpu_free: int, gpus: tuple[int, ...], model: str, sh: tuple[TargetShape, ...]) -> float:
                v = fragment_cpu_aware(cpu_free, gpus, model, sh)
                if weight:
                    v += weight * stranded(cpu_free, gpus, per_gpu)
                if table:
                    v += sliver_term(gpus, table)
                return v

            self._fn = fn

    def of(self, cpu_free: int, gpus: tuple[int, ...], model: str) -> float:
        key = (cpu_free, tuple(sorted(gpus)), model)
        v = self._memo.get(key)
        if v is None:
            v = self._memo[key] = self._fn(cpu_free, key[1], model, self.shapes)
        return v


def fragment_cpu_aware(cpu_free: int, gpus: tuple[int, ...], model: str, shapes: tuple[TargetShape, ...]) -> float:
    """gputui's variant of F(n): each GPU shape can use only as many GPUs (or k-GPU sets) as the node's CPUs can
    feed pods of it, and CPU-only shapes are left out (they use no GPU, so they fragment none).

    For a share of m thousandths with c CPUs: of the GPUs with at least m free, the cpu_free // c emptiest are
    usable; for k whole GPUs: min(idle GPUs // k, cpu_free // c) sets. The rest of the idle GPU is m's fragment.
    """
    ordered = sorted(gpus, reverse=True)
    total = sum(ordered)
    idle = sum(1 for g in ordered if g == MILLI)
    out = 0.0
    for m in shapes:
        milli = m.gpu_milli
        if milli == 0:
            continue
        if m.gpu_spec and model not in m.gpu_spec:
            out += m.freq * total
            continue
        pods = cpu_free // m.cpu_milli if m.cpu_milli else len(ordered) * MILLI
        if m.num_gpu == 1 and milli < MILLI:
            usable = 0
            for g in ordered[:pods]:  # the emptiest GPUs first
                if g < milli:
                    break
                usable += g
        else:
            usable = min(idle // m.num_gpu, pods) * m.num_gpu * MILLI
        out += m.freq * (total - usable)
    return out


def cpu_per_gpu(shapes: tuple[TargetShape, ...]) -> float:
    """The CPU thousandths per GPU that the expected GPU workload asks, weighted by GPU asked (0: no GPU shape)."""
    gpu = [m for m in shapes if m.gpu_milli]
    total = sum(m.freq * m.num_gpu * m.gpu_milli for m in gpu)
    return sum(m.freq * m.cpu_milli for m in gpu) / (total / MILLI) if total else 0.0


def stranded(cpu_free: int, gpus: tuple[int, ...], per_gpu: float) -> float:
    """The free thousandths of GPU on a node that its free CPUs cannot feed in the long run, at ``per_gpu`` CPU
    thousandths per GPU: the rest of the workload's pods will need about that many CPUs beside each GPU."""
    return max(0.0, sum(gpus) - cpu_free * MILLI / per_gpu)


__all__ = ["MILLI", "Fragmenter", "TargetShape", "cpu_per_gpu", "fragment", "fragment_cpu_aware", "stranded",
           "typical_shapes"]  # fmt: skip
