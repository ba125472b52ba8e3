"""Slurm: the node and device choices of Slurm 22.05's select/cons_tres, as measured on a real cluster.

Nodes are taken in Slurm's order (lowest Weight first, then as slurm.conf lists them; the Slurm what-if hands the
nodes over in that order). The usable nodes form runs of consecutive nodes ("sets"); the set chosen is the first
that can hold the whole job, the one with the fewest free CPUs among those that can, or else the largest.
Inside it a job that needs one more node takes the one with the fewest free CPUs that fits (the first of equals);
more nodes are taken in order. Inside a node the lowest free GPU indices go first, whatever their type; an MPS
share goes on the first GPU that no whole-GPU job holds, or nowhere. (See docs/slurm-fidelity.md.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from gputui.core.scheduler.policies.best_fit import mig_key

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.base import NodeView
    from gputui.core.scheduler.state import GpuUnit, NodeState

T = TypeVar("T")


def free_cpus(node: NodeState) -> int:
    """Whole CPUs free on the node (Slurm's avail_cpus); a node whose CPUs are unknown counts as roomy."""
    return 1 << 30 if node.cpus is None else node.cpu_free // 1000


def runs(options: Sequence[tuple[NodeState, T]]) -> list[list[tuple[NodeState, T]]]:
    """The options (in node order) cut into runs of consecutive nodes."""
    out: list[list[tuple[NodeState, T]]] = []
    last = -2
    for opt in options:
        if opt[0].idx != last + 1 or not out:
            out.append([])
        out[-1].append(opt)
        last = opt[0].idx
    return out


def best_set(
    sets: list[list[tuple[NodeState, T]]], enough: Callable[[list[tuple[NodeState, T]]], bool]
) -> list[tuple[NodeState, T]]:
    """Slurm's choice among the sets: the first sufficient one with the fewest CPUs, else the one with the most."""
    best: list[tuple[NodeState, T]] | None = None
    best_cpus, best_ok = 0, False
    for s in sets:
        cpus = sum(free_cpus(n) for n, _ in s)
        ok = enough(s)
        better = (ok and (not best_ok or cpus < best_cpus)) or (not ok and not best_ok and cpus > best_cpus)
        if best is None or better:
            best, best_cpus, best_ok = s, cpus, ok
    assert best is not None
    return best


def tightest(options: Sequence[tuple[NodeState, T]], fits: Callable[[tuple[NodeState, T]], bool]) -> int | None:
    """Position of the option with the fewest free CPUs among those that ``fits``, the first of equals."""
    pick: int | None = None
    for i, opt in enumerate(options):
        if fits(opt) and (pick is None or free_cpus(opt[0]) < free_cpus(options[pick][0])):
            pick = i
    return pick


class Slurm:
    name = "slurm"
    ascending = True
    candidates = 1
    node_order = True  # exclusive nodes and whole-node searches go in node order, not by free counts
    mps_first_only = True  # an MPS share only ever tries the first GPU not held whole

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        return (-free_cpus(view.node), -view.node.idx)

    def whole_key(self, g: GpuUnit) -> tuple:
        return (-g.index,)

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        return mig_key(used_before, open_before, open_after, lean)  # Slurm creates no MIG instances: best-fit's

    def mps_key(self, g: GpuUnit) -> tuple:
        return (-g.index,)

    def select(self, options: list[tuple[NodeState, T]], n: int, cpu_milli: int) -> list[tuple[NodeState, T]] | None:
        """``n`` of the feasible per-node ``options`` (in node order), each needing ``cpu_milli``; None if too few."""
        need = max(1, cpu_milli // 1000)
        chosen: list[tuple[NodeState, T]] = []
        sets = runs(options)
        while len(chosen) < n and sets:
            rem = n - len(chosen)

            def enough(s: list[tuple[NodeState, T]], r: int = rem) -> bool:
                return len(s) >= r and sum(free_cpus(x) for x, _ in s) >= r * need

            pick = best_set(sets, enough)
            sets.remove(pick)
            if rem == 1:
                i = tightest(pick, lambda o: free_cpus(o[0]) >= need)
                if i is not None:
                    chosen.append(pick[i])
                continue
            chosen.extend(pick[:rem])
        return sorted(chosen, key=lambda o: o[0].idx) if len(chosen) == n else None

    def select_total(
        self, options: list[tuple[NodeState, list[GpuUnit]]], total: int, nodes: int | None, cpu_milli: int
    ) -> list[tuple[NodeState, int]] | None:
        """GPUs per node for a job total of ``total`` over at least ``nodes`` (exactly, if given) nodes."""
        need = max(1, cpu_milli // 1000)
        want_nodes = nodes or 1
        taken: list[tuple[NodeState, int]] = []
        left = total
        sets = runs(options)
        while (left > 0 or len(taken) < want_nodes) and sets:
            rem_nodes = max(0, want_nodes - len(taken))

            def enough(s: list[tuple[NodeState, list[GpuUnit]]], rem_nodes: int = rem_nodes, left: int = left) -> bool:
                return len(s) >= rem_nodes and sum(len(f) for _, f in s) >= left

            pick = best_set(sets, enough)
            sets.remove(pick)
            if rem_nodes <= 1 and not taken and nodes in (None, 1):

                def whole(o: tuple[NodeState, list[GpuUnit]], k: int = left) -> bool:
                    return free_cpus(o[0]) >= need and len(o[1]) >= k

                i = tightest(pick, whole)
                if i is not None:
                    return [(pick[i][0], left)]
            for node, free in pick:
                if (left <= 0 and len(taken) >= want_nodes) or (nodes is not None and len(taken) >= nodes):
                    break
                after = max(0, want_nodes - len(taken) - 1)  # nodes still to come, one GPU each at least
                k = min(len(free), left - after)
                if k <= 0 or free_cpus(node) < need:
                    continue
                taken.append((node, k))
                left -= k
        if left > 0 or len(taken) < want_nodes:
            return None
        return sorted(taken, key=lambda t: t[0].idx)
