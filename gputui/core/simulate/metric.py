"""FGD's metric: the GPU allocation ratio after each arrival, bucketed by arrived GPU demand in whole per cent.

As FGD's analysis scripts compute it (Python rounding throughout): per event, arrived % = round(arrived thousandths
/ GPUs / 10) and allocated % = round(allocated thousandths / GPUs / 10, 2); a bucket's value is the mean of its
events' allocated %, rounded to hundredths. Fragmentation is bucketed the same way (FGD's F summed over the nodes,
as a per cent of the cluster's GPUs).
"""

from __future__ import annotations

from collections.abc import Sequence


def buckets(arrived: Sequence[int], values: Sequence[float], total_gpus: int, digits: int = 2) -> dict[int, float]:
    """Per arrived %, the mean of ``values`` (thousandths of GPU) as a per cent of ``total_gpus`` GPUs."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for a, v in zip(arrived, values, strict=True):
        b = int(round(a / total_gpus / 10, 0))
        sums[b] = sums.get(b, 0.0) + round(v / total_gpus / 10, digits)
        counts[b] = counts.get(b, 0) + 1
    return {b: round(sums[b] / counts[b], 2) for b in sorted(sums)}


def at(curve: dict[int, float], pct: int) -> float | None:
    """The value at ``pct``, or as FGD's scripts do when no event fell there, the mean of the buckets next to it."""
    if pct in curve:
        return curve[pct]
    near = [curve[b] for b in (pct - 1, pct + 1) if b in curve]
    return round(sum(near) / len(near), 2) if near else None
