"""One simulated GPU: turns the processes on it into a GpuSnapshot with power, heat and clocks to match."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from gputui.core.mig_profiles import model_for
from gputui.core.model import Activity, GpuInstance, GpuSnapshot, MpsDaemon, ProcessInfo, activity_of_instances
from gputui.synth.gpu_specs import GpuSpec, spec_for
from gputui.synth.identity import gpu_uuid, mig_uuid, pci_bus_id
from gputui.synth.jobs import Rank
from gputui.synth.mig_layout import LayoutItem, build_gpu_instances

_PARTIAL_CI = re.compile(r"^(\d+)c\.")


class GpuSim:
    """Static identity and MIG layout of a GPU plus the one piece of state that lags: its temperature."""

    __slots__ = (
        "index",
        "spec",
        "uuid",
        "pci_bus_id",
        "instances",
        "compute_mode",
        "temp",
        "_ci_share",
        "_gi_base",
        "_last",
        "gpm",
    )

    def __init__(
        self,
        index: int,
        spec: GpuSpec,
        uuid: str,
        pci_bus_id: str,
        instances: tuple[GpuInstance, ...] | None = None,
        compute_mode: str = "Default",
        temp: float | None = None,
    ) -> None:
        self.index = index
        self.spec = spec
        self.uuid = uuid
        self.pci_bus_id = pci_bus_id
        self.instances = instances  # None: MIG off; () : MIG on with no instances yet
        self.compute_mode = compute_mode
        self.temp = spec.temp_idle_c if temp is None else temp
        self._ci_share: dict[tuple[int | None, int | None], float] = {}
        self._gi_base: dict[int | None, int] = {}
        self._last = instances or ()  # the GIs as last shown; unchanged ones are reused, not rebuilt
        self.gpm = False  # True: the GPU reports GPM activity (Hopper and newer), per MIG instance too
        if instances is not None:
            model = model_for(spec.name)
            if model is None:
                raise ValueError(f"no MIG table for {spec.name}")
            for gi in instances:
                # a GI holds a few MiB per memory slot for its own bookkeeping, processes or not
                self._gi_base[gi.gi_id] = 10 * (gi.placement_size or 1)
                gi_profile = model.profile(gi.profile or "")
                gi_slices = gi_profile.compute_slices if gi_profile else 1
                for ci in gi.compute_instances:
                    m = _PARTIAL_CI.match(ci.profile or "")
                    slices = int(m.group(1)) if m else gi_slices
                    self._ci_share[(gi.gi_id, ci.ci_id)] = slices / model.compute_slices

    @property
    def mig(self) -> bool:
        return self.instances is not None

    def ci_exists(self, gi_id: int | None, ci_id: int | None) -> bool:
        return (gi_id, ci_id) in self._ci_share

    def snapshot(
        self,
        ranks: Sequence[Rank],
        rng: random.Random,
        mps: MpsDaemon | None = None,
        server: ProcessInfo | None = None,
    ) -> GpuSnapshot:
        """The GPU as nvidia-smi would show it this second, given the ranks running on it."""
        s = self.spec
        procs = [r.info() for r in ranks]
        if server is not None:
            procs.append(server)
        load = 0.0  # share of the power headroom in use
        if self.instances is None:
            idle = 1.0
            mem_busy = 0.0
            for r in ranks:
                u = r.util / 100.0
                idle *= 1.0 - u  # kernels of several processes overlap in time
                mem_busy += u * r.job.load.mem_intensity
                share = (r.target.mps_threads or 100) / 100.0
                load += u * r.job.load.power_intensity * (share if share < 1.0 else 1.0)
            util: int | None = int((1.0 - idle) * 100.0 + 0.5)
            util_mem: int | None = min(100, int(mem_busy * 100.0 + 0.5))
            used = sum(p.used_memory_mib or 0 for p in procs)
            used = used + s.driver_overhead_mib if procs else 0
            instances: tuple[GpuInstance, ...] = ()
            activity = _activity([(r.util, 1.0, r.job.load.mem_intensity) for r in ranks]) if self.gpm else None
        else:
            # NVML has no whole-GPU utilisation in MIG mode: nvidia-smi prints N/A
            util = util_mem = None
            gi_used = dict(self._gi_base)
            gi_work: dict[int | None, list[tuple[float, float, float]]] = {g: [] for g in gi_used}
            for r in ranks:
                t = r.target
                gi_used[t.gi_id] += r.mem
                share = self._ci_share[(t.gi_id, t.ci_id)]
                load += r.util / 100.0 * r.job.load.power_intensity * share
                gi_work[t.gi_id].append((r.util, share, r.job.load.mem_intensity))
            acts: dict[int | None, Activity | None] = {}
            if self.gpm:
                for gi in self._last:
                    whole = sum(sh for (g, _), sh in self._ci_share.items() if g == gi.gi_id) or 1.0
                    acts[gi.gi_id] = _activity([(u, sh / whole, m) for u, sh, m in gi_work[gi.gi_id]])
            instances = tuple(
                gi
                if gi.memory_used_mib == gi_used[gi.gi_id] and gi.activity == acts.get(gi.gi_id)
                else GpuInstance(
                    gi.gi_id,
                    gi.profile,
                    gi.profile_id,
                    gi.placement_start,
                    gi.placement_size,
                    gi.memory_total_mib,
                    gi_used[gi.gi_id],
                    gi.sm_count,
                    gi.compute_instances,
                    acts.get(gi.gi_id),
                )
                for gi in self._last
            )
            self._last = instances
            used = sum(gi_used.values())
            activity = None
            if self.gpm:
                model = model_for(s.name)
                parts = [(gi.activity, _gi_slices(gi.profile)) for gi in instances]
                activity = activity_of_instances(parts, model.compute_slices if model else 7)
        if load > 1.0:
            load = 1.0
        headroom = s.power_limit_w - s.power_idle_w
        power = s.power_idle_w + headroom * load + rng.gauss(0.0, 1.5 if load > 0.0 else 0.5)
        power = min(s.power_limit_w, max(s.power_idle_w * 0.9, power))
        target = s.temp_idle_c + (s.temp_full_c - s.temp_idle_c) * (power - s.power_idle_w) / headroom
        self.temp += 0.06 * (target - self.temp) + rng.gauss(0.0, 0.1)
        if load > 0.02:
            clock = s.clock_max_mhz
            if power > 0.97 * s.power_limit_w:  # power capping pulls the clock down a few bins
                clock -= s.clock_step_mhz * rng.randint(1, 6)
        else:
            clock = s.clock_idle_mhz
        return GpuSnapshot(
            index=self.index,
            uuid=self.uuid,
            name=s.name,
            pci_bus_id=self.pci_bus_id,
            memory_total_mib=s.memory_total_mib,
            memory_used_mib=used,
            utilization_gpu=util,
            utilization_memory=util_mem,
            temperature_c=int(self.temp + 0.5),
            power_draw_w=round(power, 2),
            power_limit_w=s.power_limit_w,
            fan_percent=None,  # SXM boards are cooled by the chassis: nvidia-smi shows N/A
            clock_graphics_mhz=clock,
            clock_sm_mhz=clock,
            clock_memory_mhz=s.clock_memory_mhz,
            performance_state="P0",
            compute_mode=self.compute_mode,
            persistence_mode=True,
            mig_mode_current=self.mig,
            mig_mode_pending=self.mig,
            gpu_instances=instances,
            mps=mps,
            processes=tuple(procs),
            activity=activity,
        )


def _gi_slices(profile: str | None) -> int:
    m = re.match(r"^(\d+)g\.", profile or "")
    return int(m.group(1)) if m else 0


def _activity(work: list[tuple[float, float, float]]) -> Activity:
    """GPM figures of a unit from its processes' (utilisation %, share of the unit's SMs, memory intensity): the
    SMs busy are each process's utilisation over its share; warps resident, tensor pipes and DRAM follow."""
    sm = min(100.0, sum(u * share for u, share, _ in work))
    dram = min(100.0, sum(u * share * m for u, share, m in work))
    return Activity(round(sm), round(sm * 0.55), round(dram), round(sm * 0.7))


def make_gpu(
    seed: int,
    node: str,
    index: int,
    gpu_name: str,
    layout: Sequence[LayoutItem] | None = None,
    compute_mode: str = "Default",
) -> GpuSim:
    """A GPU with deterministic identity; ``layout`` None leaves MIG off, a list (even empty) turns it on."""
    spec = spec_for(gpu_name)
    instances = None
    if layout is not None:
        model = model_for(gpu_name)
        if model is None:
            raise ValueError(f"{gpu_name} does not support MIG")
        instances = build_gpu_instances(model, layout, lambda gi, ci: mig_uuid(seed, node, index, gi, ci))
    return GpuSim(index, spec, gpu_uuid(seed, node, index), pci_bus_id(gpu_name, index), instances, compute_mode)
