"""Applying and releasing allocations on a :class:`ClusterState`, keeping its indexes exact."""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation, GpuGrant
from gputui.core.scheduler.state import ClusterState, GpuUnit, MigSlot


def _slot(g: GpuUnit, gi_id: int) -> MigSlot | None:
    for s in g.instances:
        if s.gi_id == gi_id:
            return s
    return None


def _grant_free(state: ClusterState, g: GpuUnit, gr: GpuGrant, exclusive_ok: bool) -> bool:
    if g.lost or g.busy:
        return False
    if gr.mig is not None:
        if not g.mig:
            return False
        if gr.mig.created:
            if not (state.config.mig_dynamic and g.dyn_ok and g.model):
                return False
            p = g.model.profile(gr.mig.profile)
            if p is None or gr.mig.placement_start is None or _slot(g, gr.mig.gi_id) is not None:
                return False
            if p.placement_mask(gr.mig.placement_start) & g.used_mask:
                return False
            return g.compute_used + p.compute_slices <= g.model.compute_slices
        s = _slot(g, gr.mig.gi_id)
        return s is not None and s.holder is None and not s.busy
    beside = state.config.mps_beside_whole
    if g.mig or (g.holder is not None and not (beside and gr.mps_percent is not None)):
        return False
    if gr.mps_percent is not None:
        return g.mps_on and g.mps_clients < state.config.mps_max_clients and not (g.shards_used or g.milli_used)
    if gr.shards is not None:
        return not (g.mps_jobs or g.foreign_clients or g.milli_used) and g.shards_used + gr.shards <= g.shards
    if gr.milli is not None:
        return not (g.mps_jobs or g.foreign_clients or g.shards_used) and g.milli_used + gr.milli <= 1000
    return not ((g.mps_jobs and not beside) or g.foreign_clients or g.shards_used or g.milli_used)


def can_apply(state: ClusterState, alloc: Allocation) -> bool:
    """Whether every part of ``alloc`` is free right now."""
    for ng in alloc.nodes:
        node = state.by_name.get(ng.node)
        if node is None or node.exclusive is not None:
            return False
        if ng.exclusive and (node.unpristine or node.jobs):
            return False
        if not node.host_fits(ng.cpu_milli, ng.mem_mib):
            return False
        for gr in ng.gpus:
            g = node.by_index.get(gr.index)
            if g is None or not _grant_free(state, g, gr, ng.exclusive):
                return False
    return True


def apply(state: ClusterState, alloc: Allocation, job: int) -> None:
    """Give ``alloc`` to ``job``; the caller has checked that it is free."""
    for ng in alloc.nodes:
        node = state.by_name[ng.node]
        touched: list[GpuUnit] = []
        for gr in ng.gpus:
            g = node.by_index[gr.index]
            if gr.mig is not None:
                if gr.mig.created:
                    assert g.model is not None
                    s = MigSlot(gr.mig.gi_id, gr.mig.profile, g.model.profile(gr.mig.profile),
                                gr.mig.placement_start, gr.mig.placement_size, gr.mig.cis, created=True)  # fmt: skip
                    g.instances.append(s)
                else:
                    s = _slot(g, gr.mig.gi_id)  # type: ignore[assignment]
                    assert s is not None
                assert s.holder is None, "MIG instance held twice"
                s.holder = job
            elif gr.mps_percent is not None:
                assert job not in g.mps_jobs and (g.holder is None or state.config.mps_beside_whole)
                g.mps_jobs[job] = (gr.mps_percent, gr.mps_memory_mib)
                g.mps_pct += gr.mps_percent
                g.mps_mem += gr.mps_memory_mib
                g.mps_clients += 1
            elif gr.shards is not None:
                g.shards_used += gr.shards
            elif gr.milli is not None:
                g.milli_used += gr.milli
            else:
                assert g.holder is None and not (g.mps_jobs and not state.config.mps_beside_whole), "GPU held twice"
                g.holder = job
            touched.append(g)
        state.take_host(node, ng.cpu_milli, ng.mem_mib, 1)
        if ng.exclusive:
            node.exclusive = job
            touched = node.gpus
            state._refresh_idle(node)
        state.touch_all(node, touched)


def release(state: ClusterState, alloc: Allocation, job: int, count: bool = True) -> None:
    """Take ``alloc`` back from ``job``; instances created for it disappear, so the free state is as before.

    ``count`` False leaves the release counters alone (a what-if that is undone at once).
    """
    if count:
        state.releases += 1
    for ng in alloc.nodes:
        node = state.by_name[ng.node]
        if count:
            node.releases += 1
        for gr in ng.gpus:
            g = node.by_index[gr.index]
            if gr.mig is not None:
                s = _slot(g, gr.mig.gi_id)
                assert s is not None and s.holder == job
                s.holder = None
                if s.created:
                    g.instances.remove(s)
            elif gr.mps_percent is not None:
                pct, mem = g.mps_jobs.pop(job)
                g.mps_pct -= pct
                g.mps_mem -= mem
                g.mps_clients -= 1
            elif gr.shards is not None:
                g.shards_used -= gr.shards
            elif gr.milli is not None:
                g.milli_used -= gr.milli
            else:
                assert g.holder == job
                g.holder = None
        state.take_host(node, ng.cpu_milli, ng.mem_mib, -1)
        if ng.exclusive:
            assert node.exclusive == job
            node.exclusive = None
            state._refresh_idle(node)
            state.touch_all(node, node.gpus)
        else:
            state.touch_all(node, [node.by_index[gr.index] for gr in ng.gpus])
