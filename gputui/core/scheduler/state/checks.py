"""Checks of a :class:`ClusterState` for tests and audits: its placement-deciding fingerprint, and every index
recomputed from scratch against the kept one."""

from __future__ import annotations

from gputui.core.scheduler.state import CPU, CPU_STEP, MEM, MEM_STEP, MILLI, MPS_ROOM, SHARD, ClusterState, in_steps


def fingerprint(state: ClusterState) -> tuple:
    """Everything that decides future placements, as plain data: equal fingerprints place alike."""
    gpus = tuple(
        (n.name, g.index, g.holder, g.busy, tuple(sorted(g.mps_jobs.items())), g.mps_pct, g.mps_mem,
         g.mps_clients, tuple(sorted((s.gi_id or 0, s.name or "", s.mask, s.holder or 0, s.busy, s.created)
                                   for s in g.instances)),
         g.shards_used, g.milli_used)
        for n in state.nodes for g in n.gpus
    )  # fmt: skip
    buckets = tuple(sorted((k, tuple(v).__repr__()) for k, v in state.buckets.items() if any(v)))
    totals = tuple(sorted((k, v) for k, v in state.totals.items() if v))
    excl = tuple(n.exclusive for n in state.nodes)
    host = tuple((n.cpu_free, n.mem_free, n.jobs) for n in state.nodes)
    return gpus, buckets, totals, state.idle_mask, excl, host


def audit(state: ClusterState) -> None:
    """Recompute every index from scratch and raise AssertionError where the kept ones differ."""
    counts: dict[str, dict[int, int]] = {}
    idle = 0
    for n in state.nodes:
        unpristine = 0
        best = [0, 0, 0]
        for g in n.gpus:
            contrib = state.contribution(g)
            assert contrib == g.contrib, f"{n.name} GPU {g.index}: contribution {g.contrib} != {contrib}"
            for k, v in contrib.items():
                counts.setdefault(k, {})[n.idx] = counts.setdefault(k, {}).get(n.idx, 0) + v
            unpristine += not state.is_pristine(g)
            b = state.best_of(g)
            assert b == g.best, f"{n.name} GPU {g.index}: best-of {g.best} != {b}"
            best = [max(x, y) for x, y in zip(best, b, strict=True)]
        for k, v in zip((MPS_ROOM, SHARD, MILLI), best, strict=True):
            if v:
                counts.setdefault(k, {})[n.idx] = v
        if n.cpus is not None:
            assert 0 <= n.cpu_free <= n.cpu_milli, f"{n.name}: {n.cpu_free} of {n.cpu_milli} milli-CPUs free"
            if n.cpu_free and CPU in state.share_keys:
                counts.setdefault(CPU, {})[n.idx] = in_steps(n.cpu_free, CPU_STEP)
        if n.mem is not None:
            assert 0 <= n.mem_free <= n.mem, f"{n.name}: {n.mem_free} of {n.mem} MiB free"
            if n.mem_free and MEM in state.share_keys:
                counts.setdefault(MEM, {})[n.idx] = in_steps(n.mem_free, MEM_STEP)
        assert unpristine == n.unpristine, f"{n.name}: unpristine {n.unpristine} != {unpristine}"
        if unpristine == 0 and n.exclusive is None and n.jobs == 0 and (n.gpus or n.cpus is not None):
            idle |= n.bit
    assert idle == state.idle_mask, "idle mask out of date"
    for k, bucket in state.buckets.items():
        per = counts.get(k, {})
        for c in range(1, len(bucket)):
            want = 0
            for idx, v in per.items():
                if v == c:
                    want |= 1 << idx
            assert bucket[c] == want, f"bucket {k}[{c}] out of date"
        assert state.totals.get(k, 0) == sum(per.values()), f"total {k} out of date"
