"""Term 3 of fgd-cpu's F: what a partly used GPU will waste in the end, not only what the next pod cannot use.

FGD's F prices a GPU with s thousandths free at s x P(the next pod does not fit s): a 530 hole left by a 470 share
costs about as much per thousandth as a 190 sliver left by an 810 one. But a 530 hole is soon filled (470, 460 and
320 shares are common), while a 190 sliver waits for the rare 160, 110 and 50 shares. Term 3 adds, for each partly
used GPU, the difference between its eventual waste W(s) and its immediate waste C(s), both under the typical GPU
pods (the shapes F uses, their frequencies renormalised over the GPU shapes):

- C(s) = s x (1 - q(s)), q(s) the share of GPU pods that are shares of at most s thousandths;
- W(s): the hole takes a further pod with probability a(s) = 1 - exp(-REACH x q(s)) (at least one of REACH GPU
  pods fits it), that pod drawn among the fitting shares by their frequency; else s is wasted:
  W(s) = (1 - a(s)) x s + a(s) x sum over shares m <= s of p(m) / q(s) x W(s - m), and W(s) = s where no share fits.

Idle GPUs (s = 1000) and full ones (s = 0) add nothing. GPU model constraints are not part of the table. REACH is
one constant for every workload (the table is derived from the workload by the rule above); what other values
gave is in docs/simulate.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gputui.core.scheduler.policies.shapes import MILLI

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.frag import TargetShape

#: How many GPU pods a partly used GPU may take its next pod from (a(s) above); 30 to 100 measure within 0.1.
REACH = 50.0


def share_mix(shapes: tuple[TargetShape, ...]) -> dict[int, float]:
    """Thousandths of a share -> its frequency among the GPU shapes (shares of one GPU only)."""
    total = sum(m.freq for m in shapes if m.gpu_milli and m.num_gpu)
    out: dict[int, float] = {}
    if total <= 0:
        return out
    for m in shapes:
        if m.num_gpu == 1 and 0 < m.gpu_milli < MILLI:
            out[m.gpu_milli] = out.get(m.gpu_milli, 0.0) + m.freq / total
    return out


def eventual_waste(shapes: tuple[TargetShape, ...], reach: float = REACH) -> list[float]:
    """W(s) for s = 0 .. 1000 (index = free thousandths)."""
    mix = sorted(share_mix(shapes).items())
    w = [0.0] * (MILLI + 1)
    for s in range(1, MILLI + 1):
        fit = [(m, p) for m, p in mix if m <= s]
        q = sum(p for _, p in fit)
        if q <= 0:
            w[s] = float(s)
            continue
        a = 1.0 - math.exp(-reach * q)
        w[s] = (1.0 - a) * s + a * sum(p * w[s - m] for m, p in fit) / q
    return w


def correction(shapes: tuple[TargetShape, ...], reach: float = REACH, idle_priced: bool = False) -> tuple[float, ...]:
    """W(s) - C(s) for s = 0 .. 1000, 0 at s = 0 and s = 1000: what term 3 adds per GPU with s free.

    ``idle_priced``: an idle GPU gets the value of one with 999 free, so that opening an idle GPU for a share earns
    nothing by itself (the table is strongly negative just below 1000: without this, term 3 rewards breaking idle
    GPUs, which fails where the shares to fill the holes do not come; docs/simulate.md)."""
    mix = sorted(share_mix(shapes).items())
    w = eventual_waste(shapes, reach)
    out = [0.0] * (MILLI + 1)
    for s in range(1, MILLI):
        q = sum(p for m, p in mix if m <= s)
        out[s] = w[s] - s * (1.0 - q)
    if idle_priced:
        out[MILLI] = out[MILLI - 1]
    return tuple(out)


def sliver_term(gpus: tuple[int, ...], table: tuple[float, ...]) -> float:
    """Term 3 of a node: the table's value summed over its GPUs' free thousandths."""
    return sum(table[g] for g in gpus)
