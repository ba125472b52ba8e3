"""fgd-cpu (gputui's own): FGD's gradient over a CPU-aware fragmentation measure, in the simulator and the live queue.

The score and the GPU choice are FGD's (:mod:`fgd`: trunc(100 x sigmoid(dF / 1000)), ties by the tie-break order),
but F is gputui's: (1) it counts as usable only the GPUs that the node's remaining CPUs can still feed a pod of each
shape (:func:`frag.fragment_cpu_aware`; FGD's own F treats a node with 8 idle GPUs and 12 CPUs left as fully usable
by 11-CPU pods, though only one such pod fits), and (2) it adds :data:`STRANDING` x the free GPU that the node's free
CPUs cannot feed in the long run, at the workload's CPUs per GPU (:func:`frag.stranded`): one pod at a time, (1)
does not see that a CPU-hungry pod on a node with just enough CPUs leaves GPUs that the next pods cannot use; and (3)
it prices each partly used GPU at what it will waste in the end, not only at what the next pod cannot use
(:mod:`slivers`: a hole that common shares fill costs less than a sliver that only rare ones fit). What each idea
tried gave is in docs/simulate.md.

In the live scheduler (:class:`FgdCpu`) the expected workload is ``SchedulerConfig.workload`` where one is set, else
the GPU pods of Alibaba's openb default trace (:data:`OPENB_DEFAULT`); whole GPUs, thousandths and CPU-only jobs
are scored by :func:`live_score`, and MIG, MPS and shard placements keep best-fit's order (F knows nothing of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gputui.core.scheduler.policies import best_fit, fgd
from gputui.core.scheduler.policies.frag import Fragmenter, TargetShape
from gputui.core.scheduler.policies.shapes import MILLI, NodeFree, PodShape

if TYPE_CHECKING:
    from gputui.core.scheduler.policies.base import NodeView
    from gputui.core.scheduler.state import GpuUnit

#: The expected workload where none is configured: the GPU pods of openb_pod_list_default.csv (Alibaba
#: clusterdata, cluster-trace-gpu-v2023) that FGD's 95 % rule keeps, as (CPU thousandths, GPU thousandths, GPUs,
#: pods).
OPENB_DEFAULT: tuple[tuple[int, int, int, int], ...] = (
    (3152, 810, 1, 1047), (11300, 1000, 1, 874), (11400, 1000, 1, 599), (3152, 1000, 1, 470), (11908, 470, 1, 388),
    (8000, 470, 1, 360), (12000, 1000, 1, 326), (18708, 1000, 1, 255), (11908, 650, 1, 237), (4000, 320, 1, 232),
    (9810, 1000, 1, 195), (8000, 1000, 1, 164), (4000, 1000, 1, 159), (15700, 1000, 1, 158), (11908, 1000, 1, 153),
    (16000, 1000, 1, 150), (4000, 230, 1, 122), (6000, 460, 1, 120), (14200, 1000, 1, 93), (24200, 1000, 1, 84),
    (3152, 590, 1, 75), (8000, 320, 1, 72), (4152, 550, 1, 72), (11900, 1000, 1, 55), (4000, 160, 1, 54),
    (4152, 370, 1, 45), (4000, 220, 1, 43), (8200, 1000, 1, 41), (15200, 1000, 1, 36), (4152, 810, 1, 31),
)  # fmt: skip


#: The weight of the long-run CPU-stranding term (:func:`frag.stranded`) in F; 2 to 20 measure the same.
STRANDING = 5.0


class FgdCpuTrace:
    name = "fgd-cpu"
    uses_affinity = False
    randomised = False

    def __init__(self, frag: Fragmenter, idle_priced: bool = False) -> None:
        self.frag = Fragmenter(frag.shapes, cpu_aware=True, stranding=STRANDING, slivers=True, idle_priced=idle_priced)

    def evaluate(self, node: NodeFree, pod: PodShape) -> tuple[int, tuple[int, ...]]:
        return fgd.evaluate(node, pod, self.frag)


def shapes_of(table: tuple[tuple[int, int, int, int], ...]) -> tuple[TargetShape, ...]:
    total = sum(t[3] for t in table) or 1
    return tuple(TargetShape(c, m, k, frozenset(), n / total) for c, m, k, n in table)


def workload_shapes(workload: tuple) -> tuple[TargetShape, ...]:
    """A configured workload ((weight, JobRequest) pairs) as target shapes; requests without GPUs are left out."""
    rows = []
    for weight, req in workload:
        k = req.gpus_per_node or req.gpus or (1 if req.gpu_milli else 0)
        if not k or weight <= 0:
            continue
        cpu = req.cpu_milli or (req.cpus_per_gpu or 0) * k * 1000 or (req.cpus_per_task or 0) * 1000
        rows.append((cpu, req.gpu_milli or MILLI, k, weight))
    total = sum(r[3] for r in rows)
    return tuple(TargetShape(c, m, k, frozenset(), w / total) for c, m, k, w in rows)


def live_score(before: NodeFree, cpu_milli: int, taken: dict[int, int], frag: Fragmenter) -> int:
    """FGD's score for taking ``cpu_milli`` CPUs and ``taken`` (GPU position -> thousandths) from ``before``."""
    gpus = before.gpus
    after = tuple(g - taken.get(i, 0) for i, g in enumerate(gpus)) if taken else gpus
    f0 = frag.of(before.cpu_milli, gpus, before.model)
    return fgd.sigmoid_score(f0, frag.of(before.cpu_milli - cpu_milli, after, before.model))


def _free(g: GpuUnit) -> int:
    """A GPU's thousandths free for a new plain or fractional job (as :meth:`NodeView.gpu_free_milli` counts)."""
    if g.lost or g.busy or g.mig or g.holder is not None or g.mps_jobs or g.foreign_clients:
        return 0
    if g.shards:
        return (g.shards - g.shards_used) * MILLI // g.shards
    return MILLI - g.milli_used


class FgdCpu:
    """The live-queue policy: the tightest nodes are visited first and the best of ``candidates`` by F is taken
    (4: measured as fast as best-fit at 1,000 nodes, where 8 cost up to 1.7x; docs/simulate.md)."""

    name = "fgd-cpu"
    ascending = True
    candidates = 4
    _MEMO_LIMIT = 200_000

    def __init__(self) -> None:
        self._frags: dict[tuple, Fragmenter] = {}

    def _frag(self, workload: tuple) -> Fragmenter:
        f = self._frags.get(workload)
        if f is None or len(f._memo) > self._MEMO_LIMIT:
            shapes = (workload_shapes(workload) if workload else ()) or shapes_of(OPENB_DEFAULT)
            f = self._frags[workload] = Fragmenter(shapes, cpu_aware=True, stranding=STRANDING, slivers=True)
        return f

    def node_score(self, free_whole_after: int, mig_after: tuple[int, int], mps_shared: int, view: NodeView) -> tuple:
        grant = view.grant
        if any(gr.mig is not None or gr.mps_percent is not None or gr.shards is not None for gr in grant.gpus):
            return (0, -free_whole_after)  # best-fit's order
        node = view.node
        units = sorted(node.gpus, key=lambda g: g.index)
        pos = {g.index: i for i, g in enumerate(units)}
        taken = {pos[gr.index]: gr.milli if gr.milli is not None else MILLI for gr in grant.gpus}
        cpu = node.cpu_free if node.cpus is not None else 1 << 40
        model = units[0].name if units else ""
        before = NodeFree(cpu, 0, tuple(_free(g) for g in units), model or "")
        return (live_score(before, grant.cpu_milli, taken, self._frag(view.workload)), -free_whole_after)

    def whole_key(self, g: GpuUnit) -> tuple:
        return best_fit.whole_key(g.mps_on, g.index)

    def mig_key(self, used_before: int, open_before: tuple[int, int], open_after: tuple[int, int],
                lean: int = 0) -> tuple:  # fmt: skip
        return best_fit.mig_key(used_before, open_before, open_after, lean)

    def mps_key(self, g: GpuUnit) -> tuple:
        return best_fit.mps_key(g.mps_pct, g.mps_clients, g.index)
