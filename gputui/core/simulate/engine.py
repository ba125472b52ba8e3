"""The simulator's placement engine: every feasible node scored by a trace policy, the best taken, ties by rank.

Nodes are held in tie-break order (rank 0 first), each as a :class:`NodeFree`. The work per pod is kept small
without changing any decision:

- a score depends only on the node's state and the pod's shape, so it is remembered per (state, shape);
- per pod shape a heap holds (score, rank) of the feasible nodes; when a pod of that shape comes, only the nodes
  that changed since the shape was last seen are scored again (older heap entries of a changed node are dropped
  when they surface), so the best node is the top of the heap: highest score, then lowest rank.

The result is the same as scoring every node every time (a test compares the two).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections.abc import Callable

from gputui.core.scheduler.policies.frag import Fragmenter
from gputui.core.scheduler.policies.random_fit import random_gpu
from gputui.core.scheduler.policies.shapes import NodeFree, PodShape, fits, take
from gputui.core.scheduler.policies.trace_policy import TracePolicy
from gputui.core.simulate.workload import TraceNode


class _ShapeIndex:
    __slots__ = ("seen", "heap", "feasible")

    def __init__(self) -> None:
        self.seen = -1  # position in the change log up to which this shape's entries are current; -1: never built
        self.heap: list[tuple[int, int, int, tuple[int, ...]]] = []
        self.feasible: list[int] = []  # ranks, sorted (randomised policies)


class Engine:
    """One cluster under one policy; :meth:`place` and :meth:`release` change it."""

    def __init__(self, nodes: tuple[TraceNode, ...] | list[TraceNode], policy: TracePolicy,
                 measure: Fragmenter | None = None, intn: Callable[[int], int] | None = None) -> None:  # fmt: skip
        self.policy = policy
        self.nodes: list[NodeFree] = [NodeFree(n.cpu_milli, n.mem_mib, (1000,) * n.gpus, n.model) for n in nodes]
        self.names = [n.name for n in nodes]
        self.ver = [0] * len(self.nodes)
        # per node: its state without memory (the memo key; no policy reads memory) and its GPUs' free thousandths
        # sorted, for the filter's "k GPUs with m free" as one bisect
        self.skey = [(nf[0], nf[2], nf[3], nf[4]) for nf in self.nodes]
        self.sgpus = [tuple(sorted(nf[2])) for nf in self.nodes]
        self.changes: list[int] = []
        self._index: dict[tuple, _ShapeIndex] = {}
        self._memo: dict[tuple, dict[tuple, tuple[int, tuple[int, ...]]]] = {}
        self._intn = intn
        self.measure = measure
        self.frag = [measure.of(n.cpu_milli, n.gpus, n.model) if measure else 0.0 for n in self.nodes]
        self.frag_sum = sum(self.frag)
        self.gpu_used = 0  # thousandths allocated

    # -- choosing -----------------------------------------------------------------------------------
    def _refresh(self, pod: PodShape) -> _ShapeIndex:
        # scored policies: one index per shape without memory (no score reads it; :meth:`choose` checks it), so
        # pods that differ in memory only share their heap; a randomised policy draws among the nodes that fit
        # exactly, memory included
        randomised = self.policy.randomised
        key: tuple = pod if randomised else (pod.cpu_milli, pod.num_gpu, pod.gpu_milli, pod.gpu_spec)
        idx = self._index.get(key)
        if idx is None:
            idx = self._index[key] = _ShapeIndex()
        if idx.seen < 0:
            todo: list[int] | set[int] = list(range(len(self.nodes)))
        else:
            todo = set(self.changes[idx.seen :])
        idx.seen = len(self.changes)
        nodes = self.nodes
        cpu, mem, k = pod.cpu_milli, pod.mem_mib, pod.num_gpu
        per = pod.gpu_milli if pod.share else 1000
        gpu = k > 0 and pod.gpu_milli > 0
        spec = pod.gpu_spec if gpu else None
        skey, sgpus = self.skey, self.sgpus
        if randomised:
            feas = idx.feasible
            for r in todo:
                nf = nodes[r]  # shapes.fits, inlined
                ok = nf[0] >= cpu and nf[1] >= mem
                if ok and gpu:
                    sg = sgpus[r]
                    ok = (not spec or nf[3] in spec) and len(sg) - bisect_left(sg, per) >= k
                i = bisect_left(feas, r)
                there = i < len(feas) and feas[i] == r
                if ok and not there:
                    insort(feas, r)
                elif there and not ok:
                    del feas[i]
            return idx
        memo = self._memo.get(key)
        if memo is None:
            memo = self._memo[key] = {}
        evaluate = self.policy.evaluate
        ver = self.ver
        heap = idx.heap
        fresh = []
        for r in todo:
            nf = nodes[r]
            # shapes.fits without memory, inlined: this loop is the simulator's hot path
            if nf[0] < cpu:
                continue
            if gpu:
                if spec and nf[3] not in spec:
                    continue
                sg = sgpus[r]
                if len(sg) - bisect_left(sg, per) < k:
                    continue
            sk = skey[r]
            v = memo.get(sk)
            if v is None:
                v = memo[sk] = evaluate(nf, pod)
            fresh.append((-v[0], r, ver[r], v[1]))
        if len(fresh) > len(heap):
            heap.extend(fresh)
            heapq.heapify(heap)
        else:
            for e in fresh:
                heapq.heappush(heap, e)
        return idx

    def choose(self, pod: PodShape) -> tuple[int, tuple[int, ...]] | None:
        """(rank, GPUs) where ``pod`` goes now, or None when no node can take it."""
        idx = self._refresh(pod)
        if self.policy.randomised:
            feas = idx.feasible
            if not feas:
                return None
            intn = self._intn
            r = feas[intn(len(feas))] if len(feas) > 1 and intn else feas[0]
            return r, random_gpu(self.nodes[r], pod, intn) if intn else self.policy.evaluate(self.nodes[r], pod)[1]
        heap, ver, nodes, mem = idx.heap, self.ver, self.nodes, pod.mem_mib
        short: list[tuple[int, int, int, tuple[int, ...]]] = []  # current entries whose node lacks the memory
        got = None
        while heap:
            e = heap[0]
            r = e[1]
            if e[2] != ver[r]:
                heapq.heappop(heap)  # the node changed since: a newer entry stands for it
            elif nodes[r][1] < mem:
                short.append(heapq.heappop(heap))
            else:
                got = r, e[3]
                break
        for e in short:
            heapq.heappush(heap, e)
        return got

    # -- changing -----------------------------------------------------------------------------------
    def _set(self, r: int, nf: NodeFree) -> None:
        self.nodes[r] = nf
        self.skey[r] = (nf[0], nf[2], nf[3], nf[4])
        self.sgpus[r] = tuple(sorted(nf[2]))
        self.ver[r] += 1
        self.changes.append(r)
        if self.measure is not None:
            f = self.measure.of(nf.cpu_milli, nf.gpus, nf.model)
            self.frag_sum += f - self.frag[r]
            self.frag[r] = f

    def commit(self, r: int, pod: PodShape, gpus: tuple[int, ...]) -> None:
        nf = take(self.nodes[r], pod, gpus)
        if not self.policy.uses_affinity and nf.affinity:
            nf = nf._replace(affinity=())
        self._set(r, nf)
        self.gpu_used += pod.total_gpu_milli

    def place(self, pod: PodShape) -> tuple[int, tuple[int, ...]] | None:
        """Choose and commit; None (nothing changes) when the pod fits nowhere."""
        got = self.choose(pod)
        if got is not None:
            self.commit(got[0], pod, got[1])
        return got

    def release(self, r: int, pod: PodShape, gpus: tuple[int, ...]) -> None:
        """A placed pod leaves node ``r``."""
        nf = take(self.nodes[r], pod, gpus, -1)
        if not self.policy.uses_affinity and nf.affinity:
            nf = nf._replace(affinity=())
        self._set(r, nf)
        self.gpu_used -= pod.total_gpu_milli

    def choose_by_scan(self, pod: PodShape) -> tuple[int, tuple[int, ...]] | None:
        """The same choice by scoring every node now (for tests of the indexed path)."""
        best: tuple[int, int, tuple[int, ...]] | None = None
        for r, nf in enumerate(self.nodes):
            if fits(nf, pod):
                s, g = self.policy.evaluate(nf, pod)
                if best is None or s > best[0]:
                    best = (s, r, g)
        return None if best is None else (best[1], best[2])
