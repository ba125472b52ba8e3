"""FGD's arrival protocol for one seed: the order pods arrive in, and the tie-break order of the nodes.

1. Go's ``rand.Seed(seed)``, then one ``rand.Int()`` (the simulator evaluates one inside a debug log call).
2. The pods sorted by name, then ``rand.Shuffle``d.
3. Tune-up (tune-down below the trace's own demand: pods drawn with ``rand.Intn`` are dropped until it is met):
   while the requested GPU stays under ``demand`` x the cluster's GPUs, draw a pod uniformly with
   replacement (``rand.Intn``) from the name-sorted list and append a copy; the first draw whose thousandths per
   GPU would cross the target ends the loop (FGD's simulator compares that figure, not the pod's total).
4. Ten ``Int63`` draws that the simulator's process consumes elsewhere (client-go's reflector jitter), then
   ``rand.Perm(nodes)``: node i of the name-sorted list is prefixed with ``%04d-`` of perm[i], and equal scores go to
   the smallest prefixed name. So a node's rank in the tie-break order is perm[i].
"""

from __future__ import annotations

from dataclasses import dataclass

from gputui.core.scheduler.policies.shapes import MILLI, PodShape
from gputui.core.simulate.gorand import GoRand
from gputui.core.simulate.workload import TraceError, TraceNode, TracePod

#: Int63 draws between the tune-up and the node permutation (see the module docstring).
OTHER_DRAWS = 10


@dataclass(frozen=True, slots=True)
class Arrivals:
    pods: tuple[PodShape, ...]  # in arrival order
    nodes: tuple[TraceNode, ...]  # in tie-break order (rank 0 first)
    rng: GoRand  # the stream after the permutation (Random policy keeps drawing from it)


def cluster_gpu_milli(nodes: list[TraceNode] | tuple[TraceNode, ...]) -> int:
    return sum(n.gpus for n in nodes) * MILLI


def arrivals(pods: list[TracePod], nodes: list[TraceNode], seed: int, demand_pct: float) -> Arrivals:
    rng = GoRand(seed)
    rng.go_int()
    by_name = sorted(pods, key=lambda p: p.name)
    order = [p.shape for p in by_name]
    rng.shuffle_list(order)
    target = demand_pct / 100.0 * cluster_gpu_milli(nodes)
    total = sum(s.total_gpu_milli for s in order)
    if total <= 0 or target <= 0:
        raise TraceError("the benchmark needs GPUs: " + ("no pod asks for one" if total <= 0 else "no node has one"))
    if total > target:  # tune-down: drop pods drawn at random until the demand is met
        while total > target and order:
            i = rng.intn(len(order))
            total -= order[i].total_gpu_milli
            del order[i]
    elif total < target:
        n = len(by_name)
        while True:
            s = by_name[rng.intn(n)].shape
            if total + s.gpu_milli > target:
                break
            total += s.total_gpu_milli
            order.append(s)
    for _ in range(OTHER_DRAWS):
        rng.int63()
    sorted_nodes = sorted(nodes, key=lambda n: n.name)
    perm = rng.perm(len(sorted_nodes))
    ranked: list[TraceNode | None] = [None] * len(sorted_nodes)
    for i, node in enumerate(sorted_nodes):
        ranked[perm[i]] = node
    return Arrivals(tuple(order), tuple(n for n in ranked if n is not None), rng)
