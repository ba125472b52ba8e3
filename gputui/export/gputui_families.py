"""gputui's own metrics (prefix ``gputui_``): what dcgm-exporter cannot know (jobs, the queue, MPS shares, MIG room,
GPUs held by a job and idle)."""

from __future__ import annotations

from collections.abc import Iterator

from gputui.export.attribution import Attribution
from gputui.export.dcgm_families import ratio
from gputui.export.mig_room import mig_room
from gputui.export.rows import GpuRow
from gputui.export.text_format import Family, braces, part

#: A GPU a job holds counts as idle below this utilization (per cent).
IDLE_BELOW_PERCENT = 5


def gpu_families(rows: list[GpuRow]) -> Iterator[Family]:
    lost = Family("gputui_gpu_lost", "1 when the driver reports the GPU lost (its other values are then absent).")
    limit = Family("gputui_gpu_power_limit_watts", "Power limit (in W).")
    total = Family("gputui_gpu_memory_total_mib", "Memory of the GPU, or of a MIG GPU instance (in MiB).")
    jobs = Family("gputui_gpu_jobs", "Running jobs holding the GPU, an MPS share, or a MIG instance of it.")
    idle = Family(
        "gputui_gpu_allocated_idle",
        f"1 when a job holds the whole GPU (or a share of it) and its utilization is under "
        f"{IDLE_BELOW_PERCENT} %, 0 when it is busy; absent when no job holds it or utilization is unknown.",
    )
    idle_count = 0
    for row in rows:
        gpu, text = row.gpu, row.labels.text
        lost.add(text, 1 if gpu.lost else 0)
        if gpu.lost:
            continue
        if gpu.power_limit_w is not None:
            limit.add(text, gpu.power_limit_w)
        if gpu.memory_total_mib is not None:
            total.add(text, gpu.memory_total_mib)
        for inst in row.instances:
            if inst.gi.memory_total_mib is not None:
                total.add(inst.labels.text, inst.gi.memory_total_mib)
        jobs.add(text, row.jobs)
        if row.holders and gpu.utilization_gpu is not None:
            is_idle = gpu.utilization_gpu < IDLE_BELOW_PERCENT
            idle_count += is_idle
            for held in row.texts:
                idle.add(held, 1 if is_idle else 0)
    count = Family("gputui_gpus_allocated_idle", "GPUs a job holds whose utilization is under the idle threshold.")
    count.add("", idle_count)
    yield from (lost, limit, total, jobs, idle, count)


def mps_families(rows: list[GpuRow], att: Attribution) -> Iterator[Family]:
    clients = Family("gputui_mps_clients", "MPS clients on the GPU (0 when the MPS daemon is known to be off).")
    share = Family("gputui_mps_client_thread_percent", "An MPS client's active thread percentage (label pid).")
    total = Family("gputui_mps_thread_percent", "Active thread percentages of the GPU's MPS clients, added up.")
    for row in rows:
        gpu = row.gpu
        if gpu.mps is None or gpu.lost:
            continue
        text = row.labels.text
        running = gpu.mps.clients if gpu.mps.running else ()
        clients.add(text, len(running))
        known = [c.active_thread_percentage for c in running if c.active_thread_percentage is not None]
        if running and len(known) == len(running):
            total.add(text, sum(known))
        for c in running:
            if c.active_thread_percentage is None:
                continue
            holder = att.pid.get((row.node.name, c.pid))
            extra = holder.parts if holder is not None else ()
            share.add(row.labels.plus(part("pid", str(c.pid)), *extra), c.active_thread_percentage)
    yield from (clients, share, total)


#: gputui's activity families: of the unit's own slices (a MIG instance's SMs all busy: 1).
ACTIVITY = (
    ("gputui_sm_active_ratio", "sm_active", "SMs busy"),
    ("gputui_sm_occupancy_ratio", "sm_occupancy", "Resident warps against the maximum"),
    ("gputui_dram_active_ratio", "dram_active", "Memory bandwidth used against the peak"),
    ("gputui_tensor_active_ratio", "tensor_active", "Time any tensor pipe was active"),
)


def activity_families(rows: list[GpuRow]) -> Iterator[Family]:
    """NVML GPM activity over the source's last interval, of the unit's own resources: on a MIG instance's series
    (GPU_I_ID), of that instance's slices, so a saturated 1g instance reads 1 (DCGM_FI_PROF_* are of the GPU)."""
    for name, field, what in ACTIVITY:
        fam = Family(name, f"{what} (ratio, NVML GPM; a MIG instance's series: of its own slices).")
        for row in rows:
            if row.gpu.lost:
                continue
            v = ratio(row.gpu.activity, field)
            if v is not None:
                fam.add(row.labels.text, v)
            for inst in row.instances:
                iv = ratio(inst.gi.activity, field)
                if iv is not None:
                    fam.add(inst.labels.text, iv)
        yield fam


def mig_families(rows: list[GpuRow]) -> Iterator[Family]:
    mem = Family("gputui_mig_free_memory_slices", "MIG memory slices no GPU instance takes.")
    comp = Family("gputui_mig_free_compute_slices", "MIG compute slices no GPU instance takes.")
    largest = Family(
        "gputui_mig_largest_free_profile",
        "Compute slices of the largest MIG profile still creatable (label profile); 0 when none is.",
    )
    opened = Family("gputui_mig_open_placements", "(profile, start slot) placements still open for a new instance.")
    frag = Family(
        "gputui_mig_fragmentation_ratio",
        "1 - largest creatable profile's compute slices / free compute slices (0: not fragmented).",
    )
    for row in rows:
        room = mig_room(row.gpu)
        if room is None:
            continue
        text = row.labels.text
        mem.add(text, room.free_memory_slices)
        comp.add(text, room.free_compute_slices)
        opened.add(text, room.open_placements)
        if room.largest is not None:
            largest.add(row.labels.plus(part("profile", room.largest.name)), room.largest.compute_slices)
        else:
            largest.add(text, 0)
        if room.fragmentation is not None:
            frag.add(text, round(room.fragmentation, 4))
    yield from (mem, comp, largest, opened, frag)


def queue_families(att: Attribution, now: float) -> Iterator[Family]:
    jobs = Family("gputui_jobs", "Jobs pending or running, by state, kind (granularity) and pending reason.")
    wait = Family("gputui_job_pending_wait_seconds_max", "The longest a pending job of this kind has waited (in s).")
    counts: dict[tuple[str, str, str], int] = {}
    longest: dict[str, float] = {}
    for q in att.queue:
        key = (q.state, q.kind, (q.reason or "") if q.state == "pending" else "")
        counts[key] = counts.get(key, 0) + 1
        if q.state == "pending" and q.submit_time is not None:
            longest[q.kind] = max(longest.get(q.kind, 0.0), now - q.submit_time)
    for (state, kind, reason), n in sorted(counts.items()):
        parts = [part("state", state), part("kind", kind)]
        if reason:
            parts.append(part("reason", reason))
        jobs.add(braces(parts), n)
    for kind, seconds in sorted(longest.items()):
        wait.add(braces([part("kind", kind)]), max(0.0, round(seconds, 3)))
    yield from (jobs, wait)
