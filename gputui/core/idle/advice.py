"""Right-sizing, the idle radar's next step: for each held unit watched long enough, its peak memory and SM
activity, and the smallest MIG profile (or MPS share) that would have served it, as a Slurm request.

SM activity is the unit's own figure (GPM for a MIG instance or a GPU; NVML utilisation for a GPU without
GPM, which counts time with any kernel, so it can only overstate the need). A unit with a frame without a
figure gets no advice: nothing is claimed about what was not seen. Needs carry headroom: the peak SM share
times 1.25 (rounded up to whole compute slices) and the peak memory times 1.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gputui.core.idle.holdings import Holder, UnitKey
from gputui.core.mig_profiles import GpuModel, MigProfile, model_for
from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot

SM_HEADROOM = 1.25
MEMORY_HEADROOM = 1.1


@dataclass(slots=True)
class _Seen:
    holder: Holder
    gpu_name: str | None
    profile: str | None  # the GI profile held; None: a whole GPU
    memory_total_mib: int | None
    first: float
    last: float
    peak_mib: int = 0
    peak_sm: int = 0
    basis: str = "gpm"
    blind: bool = False  # a frame without a figure: no advice


@dataclass(frozen=True, slots=True)
class Advice:
    """What would have served one held unit; ``suggest`` None: what it held was the right size."""

    key: UnitKey
    holder: Holder
    held: str  # "3g.40gb" or "whole GPU"
    gpu_name: str | None
    watched_s: float
    peak_memory_mib: int
    peak_sm: int  # per cent of the unit's own SMs
    basis: str  # "gpm" or "util" (NVML utilisation, an upper bound of the SM share)
    suggest: str | None  # a MIG profile name
    mps_percent: int | None  # for a whole GPU: the MPS share that would have served it
    freed_compute_slices: int
    freed_memory_mib: int

    @property
    def slurm(self) -> str | None:
        """The request in Slurm's syntax, ready to paste."""
        if self.suggest is not None:
            return f"--gres=gpu:{self.suggest}:1"
        if self.mps_percent is not None:
            return f"--gres=mps:{self.mps_percent}"
        return None


class Sizing:
    """Watches the held units frame by frame (peak memory and SM activity), then advises."""

    def __init__(self) -> None:
        self._seen: dict[tuple[UnitKey, tuple[object, ...]], _Seen] = {}

    def observe(self, snap: ClusterSnapshot, holdings: dict[UnitKey, Holder]) -> None:
        gpus = {(n.name, g.index): g for n in snap.nodes for g in n.gpus}
        t = snap.timestamp
        for key, holder in holdings.items():
            if key.kind not in ("gpu", "mig"):
                continue  # a share is already the small unit
            gpu = gpus.get((key.node, key.gpu))
            if gpu is None or gpu.lost:
                continue
            gi = _instance(gpu, key.ref) if key.kind == "mig" else None
            if key.kind == "mig" and gi is None:
                continue
            ident = (key, holder.identity)
            seen = self._seen.get(ident)
            if seen is None:
                total = gi.memory_total_mib if gi is not None else gpu.memory_total_mib
                seen = self._seen[ident] = _Seen(holder, gpu.name, gi.profile if gi else None, total, t, t)
            seen.last = t
            sm, basis = _sm(gpu, gi)
            mem = gi.memory_used_mib if gi is not None else gpu.memory_used_mib
            if sm is None or mem is None:
                seen.blind = True
                continue
            if basis == "util":
                seen.basis = "util"
            seen.peak_sm = max(seen.peak_sm, sm)
            seen.peak_mib = max(seen.peak_mib, mem)

    def advice(self, min_watch_s: float) -> list[Advice]:
        """Advice for every unit watched for at least ``min_watch_s`` with a figure in every frame."""
        out = []
        for (key, _), s in sorted(self._seen.items(), key=lambda kv: kv[0][0]):
            if s.blind or s.last - s.first < min_watch_s:
                continue
            model = model_for(s.gpu_name)
            if model is None:
                continue
            a = advise(key, s, model)
            if a is not None:
                out.append(a)
        return out


def _instance(gpu: GpuSnapshot, ref: str) -> GpuInstance | None:
    return next((g for g in gpu.gpu_instances if str(g.gi_id) == ref), None)


def _sm(gpu: GpuSnapshot, gi: GpuInstance | None) -> tuple[int | None, str]:
    a = gi.activity if gi is not None else gpu.activity
    if a is not None and a.sm_active is not None:
        return a.sm_active, "gpm"
    if gi is None and not gpu.mig_enabled and gpu.utilization_gpu is not None:
        return gpu.utilization_gpu, "util"
    return None, "gpm"


def _memory(p: MigProfile) -> int:
    return p.memory_mib_estimate or 0


def advise(key: UnitKey, s: _Seen, model: GpuModel) -> Advice | None:
    """The smallest profile with the SM slices and memory the unit's peaks need (with headroom)."""
    held = model.profile(s.profile) if s.profile else None
    if s.profile is not None and held is None:
        return None
    unit_slices = held.compute_slices if held else model.compute_slices
    unit_mib = _memory(held) if held else (s.memory_total_mib or 0)
    need_slices = max(1, math.ceil(s.peak_sm / 100 * unit_slices * SM_HEADROOM - 1e-9))
    need_mib = s.peak_mib * MEMORY_HEADROOM
    fits = [
        p
        for p in model.profiles
        if not p.name.endswith("+me") and p.compute_slices >= need_slices and _memory(p) >= need_mib
    ]
    best = min(fits, key=lambda p: (p.compute_slices, _memory(p)), default=None)
    # fewer SM slices; for an instance also the same slices with less memory (a whole GPU's 7g profile is no gain)
    smaller = best is not None and (
        best.compute_slices < unit_slices
        or (held is not None and best.compute_slices == unit_slices and _memory(best) < unit_mib)
    )
    mps = None
    if held is None:  # a whole GPU: an MPS share of its SMs would do too
        mps = min(100, max(10, math.ceil(s.peak_sm * SM_HEADROOM / 10) * 10))
        if mps >= 100:
            mps = None
    suggest = best.name if smaller and best is not None else None
    return Advice(
        key,
        s.holder,
        s.profile or "whole GPU",
        s.gpu_name,
        s.last - s.first,
        s.peak_mib,
        s.peak_sm,
        s.basis,
        suggest,
        mps,
        unit_slices - best.compute_slices if suggest and best else 0,
        max(0, unit_mib - _memory(best)) if suggest and best else 0,
    )


def advice_line(a: Advice, duration: str) -> str:
    """'job 12 (bob) held a 3g.40gb on node GPU 0 GI 1 for 14m, peak 8.7 GiB, SM at most 4 %: a 1g.10gb would
    have served  --gres=gpu:1g.10gb:1'"""
    if a.holder.job_id:
        who = f"job {a.holder.job_id}" + (f" ({a.holder.user})" if a.holder.user else "")
    else:  # held by processes outside any queue
        who = f"{a.holder.user}'s processes" if a.holder.user else "processes"
    unit = f"{a.key.node} GPU {a.key.gpu}" + (f" GI {a.key.ref}" if a.key.kind == "mig" else "")
    what = "a whole " + (a.gpu_name or "GPU") if a.held == "whole GPU" else f"a {a.held}"
    sm = f"SM at most {a.peak_sm} %" + (" (utilisation, an upper bound)" if a.basis == "util" else "")
    head = f"{who} held {what} on {unit} for {duration}, peak {a.peak_memory_mib / 1024:.1f} GiB, {sm}"
    options = []
    if a.suggest:
        options.append(f"a {a.suggest} instance")
    if a.mps_percent is not None:
        options.append(f"an MPS share of {a.mps_percent} %")
    if not options:
        return f"{head}: the right size"
    requests = [f"--gres=gpu:{a.suggest}:1"] if a.suggest else []
    requests += [f"--gres=mps:{a.mps_percent}"] if a.mps_percent is not None else []
    return f"{head}: {' or '.join(options)} would have served  ({' | '.join(requests)})"


@dataclass(frozen=True, slots=True)
class Room:
    """What could be created on one MIG GPU now, and had its advised instances been the smaller profile."""

    node: str
    gpu: int
    now: tuple[str, ...]  # MIG profiles with a free placement now
    then: tuple[str, ...]  # the same with the smaller instances


def _mask(start: int, size: int) -> int:
    return ((1 << size) - 1) << start


def _fits(model: GpuModel, used: int) -> tuple[str, ...]:
    return tuple(p.name for p in model.profiles if not p.name.endswith("+me") and model.free_placements(p, used))


def _gain(model: GpuModel, used: int) -> tuple[int, int]:
    """How good a layout is for what comes next: the largest creatable profile's slices, then how many fit."""
    fits = _fits(model, used)
    return max((p.compute_slices for p in model.profiles if p.name in fits), default=0), len(fits)


def room_after(snap: ClusterSnapshot, advice: list[Advice]) -> list[Room]:
    """Per MIG GPU with advice: the profiles that fit now and those that would fit had each advised instance been
    its suggestion, placed inside its old slots where the largest profile can then be created (the MIG tables'
    placements, exactly: a share of slices that no placement allows is no room)."""
    by_gpu: dict[tuple[str, int], list[Advice]] = {}
    for a in advice:
        if a.key.kind == "mig" and a.suggest:
            by_gpu.setdefault((a.key.node, a.key.gpu), []).append(a)
    out = []
    for n in snap.nodes:
        for g in n.gpus:
            todo = by_gpu.get((n.name, g.index))
            model = model_for(g.name)
            if not todo or model is None:
                continue
            placed = [gi for gi in g.gpu_instances if gi.placement_start is not None and gi.placement_size]
            used = 0
            for gi in placed:
                used |= _mask(gi.placement_start or 0, gi.placement_size or 0)
            then = used
            for a in todo:
                old = next((x for x in placed if str(x.gi_id) == a.key.ref), None)
                small = model.profile(a.suggest or "")
                if old is None or small is None:
                    continue
                start, size = old.placement_start or 0, old.placement_size or 0
                rest = then & ~_mask(start, size)
                inside = [s for s, sz in small.placements if s >= start and s + sz <= start + size]
                if not inside:
                    continue

                chosen = max(inside, key=lambda s: _gain(model, rest | small.placement_mask(s)))
                then = rest | small.placement_mask(chosen)
            out.append(Room(n.name, g.index, _fits(model, used), _fits(model, then)))
    return out
