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


def typical_shapes(pods: Iterable[PodShape], coverage_pct: int = 95,
                   spec_texts: Iterable[str] | None = None) -> tuple[TargetShape, ...]:  # fmt: skip
    """The expected workload of a trace, as FGD's simulator derives it (CPU-only pods included).

    A shape is keyed as FGD's simulator keys it: CPUs, thousandths per GPU, GPU count and the model list *as
    written* (``spec_texts``, one per pod: the ``gpu_spec`` column with its empty parts dropped; a CPU-only pod has
    none). So ``V100M16|V100M32`` and ``V100M16|V100M32|V100M32`` are two shapes, as they are for FGD, though they
    admit the same models. Without ``spec_texts`` the sorted model names stand for the text.

    Most frequent first; equal counts in FGD's order (its ``sort.Reverse`` of a list ascending by count, then CPUs,
    thousandths, GPU count and model text): the larger request first. Shapes are added one at a time until they
    cover ``coverage_pct`` % of the pods, then renormalised to 1.
    """
    counts: Counter[tuple[int, int, int, str]] = Counter()
    models: dict[str, frozenset[str]] = {}
    texts = iter(spec_texts) if spec_texts is not None else None
    for p in pods:
        text = next(texts, "") if texts is not None else "|".join(sorted(p.gpu_spec))
        if p.num_gpu == 0:
            text = ""  # FGD's pod reader sets no model on a CPU-only pod
        models.setdefault(text, frozenset(s for s in text.split("|") if s))
        counts[(p.cpu_milli, p.gpu_milli if p.num_gpu else 0, p.num_gpu, text)] += 1
    total = float(sum(counts.values()))
    if not total:
        return ()
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    expected = coverage_pct * total / 100.0
    cum = 0.0
    chosen = []
    for (cpu, milli, num, text), n in ranked:
        if cum >= expected:
            break
        cum += n
        chosen.append(((cpu, milli, num, models[text]), n / total))
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

    __slots__ = ("shapes", "_scored", "_memo", "_fn")

    def __init__(self, shapes: tuple[TargetShape, ...], cpu_aware: bool = False, stranding: float = 0.0,
                 slivers: bool = False, idle_priced: bool = False) -> None:  # fmt: skip
        """``cpu_aware``: :func:`fragment_cpu_aware` instead of FGD's F, plus ``stranding`` x :func:`stranded`, plus
        (``slivers``) :func:`slivers.sliver_term`: what partly used GPUs will waste in the end (``idle_priced``: see
        :func:`slivers.correction`)."""
        self.shapes = shapes
        self._scored = shapes  # the shapes F is summed over
        self._memo: dict[tuple, float] = {}
        self._fn: Callable[[int, tuple[int, ...], str, tuple[TargetShape, ...]], float] = (
            fragment_cpu_aware if cpu_aware else fragment
        )
        if not cpu_aware:
            return
        self._scored = tuple(m for m in shapes if m.gpu_milli)  # the CPU-aware F leaves CPU-only shapes out
        per_gpu = cpu_per_gpu(shapes)
        weight = stranding if per_gpu > 0 else 0.0
        table = correction(shapes, idle_priced=idle_priced) if slivers else None
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
            v = self._memo[key] = self._fn(cpu_free, key[1], model, self._scored)
        return v


def fragment_cpu_aware(cpu_free: int, gpus: tuple[int, ...], model: str, shapes: tuple[TargetShape, ...]) -> float:
    """gputui's variant of F(n): each GPU shape can use only as many GPUs (or k-GPU sets) as the node's CPUs can
    feed pods of it, and CPU-only shapes are left out (they use no GPU, so they fragment none).

    For a share of m thousandths with c CPUs: of the GPUs with at least m free, the cpu_free // c emptiest are
    usable; for k whole GPUs: min(idle GPUs // k, cpu_free // c) sets. The rest of the idle GPU is m's fragment.
    """
    asc = sorted(gpus)
    n = len(asc)
    desc_sum = [0, *accumulate(reversed(asc))]  # desc_sum[i]: the free thousandths of the i emptiest GPUs
    total = desc_sum[-1]
    idle = n - bisect_left(asc, MILLI)
    out = 0.0
    for cpu, milli, num, spec, freq in shapes:
        if milli == 0:
            continue
        if spec and model not in spec:
            out += freq * total
            continue
        pods = cpu_free // cpu if cpu else n * MILLI
        if num == 1 and milli < MILLI:
            # the emptiest GPUs first, as many as the CPUs feed, of those with at least milli free
            j = n - bisect_left(asc, milli)
            usable = desc_sum[pods if pods < j else j]
        else:
            sets = idle // num
            usable = (sets if sets < pods else pods) * num * MILLI
        out += freq * (total - usable)
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
