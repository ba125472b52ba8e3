"""One GPU's MIG layout through NVML: GPU instances with placements, compute instances, MIG device UUIDs, memory.

GPU instances come from nvmlDeviceGetGpuInstances (one call per GI profile the GPU offers) and
nvmlGpuInstanceGetInfo; compute instances from the MIG device handles, one per CI, whose attributes give
the CI's SMs and slice count. The layout changes rarely, so it is read in full only when the set of MIG
devices changes and every ``refresh_every`` polls (a GI without a CI has no MIG device to notice it by);
each poll reads the MIG device handles, their UUIDs and one memory figure per GI.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from gputui.core.mig_profiles import GpuModel, infer_profile, model_for, normalise_profile_name
from gputui.core.model import Activity, ComputeInstance, GpuInstance
from gputui.sources.nvml_calls import NvmlCalls

MIB = 1 << 20
#: NVML_GPU_INSTANCE_PROFILE_COUNT of nvml.h 12.x, for an nvidia-ml-py that does not define it.
DEFAULT_PROFILE_COUNT = 0x12


@dataclass(slots=True)
class _MigDevice:
    index: int  # j of nvmlDeviceGetMigDeviceHandleByIndex
    handle: Any
    uuid: str | None
    gi_id: int | None = None
    ci_id: int | None = None
    sm_count: int | None = None
    gi_slices: int | None = None
    ci_slices: int | None = None
    memory_mib: int | None = None


@dataclass(slots=True)
class _Gi:
    gi: GpuInstance
    slices: int | None = None
    devices: list[_MigDevice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Profile:
    profile_id: int
    name: str | None
    slices: int
    instances: int
    sm_count: int | None
    memory_mib: int | None


class MigReader:
    """Reads and caches the MIG layout of the GPU with NVML index ``gpu``."""

    def __init__(self, calls: NvmlCalls, gpu: int, refresh_every: int = 10) -> None:
        self.calls = calls
        self.gpu = gpu
        self.refresh_every = max(1, refresh_every)
        self._max_devices: int | None = None
        self._profiles: list[_Profile] | None = None
        self._layout: list[_Gi] = []
        self._signature: tuple | None = None
        self._age = 0
        self.devices: list[tuple[Any, int | None, int | None]] = []  # this poll's (MIG handle, GI id, CI id)

    def read(
        self,
        handle: Any,
        gpu_name: str | None,
        activity: Callable[[list[GpuInstance]], dict[int, Activity | None] | None] | None = None,
    ) -> tuple[GpuInstance, ...]:
        """The GPU instances; ``activity`` (given the layout, it returns each GI id's activity) fills their
        ``activity`` in the same copy that fills their memory."""
        c, i = self.calls, self.gpu
        if self._max_devices is None:
            self._max_devices = c("nvmlDeviceGetMaxMigDeviceCount", i, handle) or 0
        devices = []
        for j in range(self._max_devices):
            mh = c("nvmlDeviceGetMigDeviceHandleByIndex", i, handle, j)
            if mh is not None:
                devices.append(_MigDevice(j, mh, c("nvmlDeviceGetUUID", i, mh, key="mig")))
        signature = tuple((d.index, d.uuid) for d in devices)
        self._age += 1
        if signature != self._signature or self._age >= self.refresh_every:
            self._layout = self._read_layout(handle, devices, model_for(gpu_name))
            self._signature, self._age = signature, 0
        ids = {d.index: (d.gi_id, d.ci_id) for g in self._layout for d in g.devices}
        self.devices = [(d.handle, *ids.get(d.index, (None, None))) for d in devices]
        acts = activity([g.gi for g in self._layout]) if activity is not None else None
        out = []
        for g in self._layout:
            gi = g.gi
            a = acts.get(gi.gi_id) if acts and gi.gi_id is not None else None
            mem = None
            if g.devices:
                mem = c("nvmlDeviceGetMemoryInfo", i, self._current(g.devices[0], devices), key="mig")
            if mem is not None:
                gi = replace(gi, memory_total_mib=mem.total // MIB, memory_used_mib=mem.used // MIB, activity=a)
            elif a is not None:
                gi = replace(gi, activity=a)
            out.append(gi)
        return tuple(out)

    @staticmethod
    def _current(cached: _MigDevice, devices: list[_MigDevice]) -> Any:
        """This poll's handle for a cached MIG device (same slot and UUID, since the signature matched)."""
        for d in devices:
            if d.index == cached.index:
                return d.handle
        return cached.handle

    # -- the full read ---------------------------------------------------------------------------
    def _read_layout(self, handle: Any, devices: list[_MigDevice], model: GpuModel | None) -> list[_Gi]:
        c, i = self.calls, self.gpu
        for d in devices:
            d.gi_id = c("nvmlDeviceGetGpuInstanceId", i, d.handle, key="mig")
            d.ci_id = c("nvmlDeviceGetComputeInstanceId", i, d.handle, key="mig")
            attrs = c("nvmlDeviceGetAttributes", i, d.handle, key="mig")
            if attrs is not None:
                d.sm_count = attrs.multiprocessorCount
                d.gi_slices = attrs.gpuInstanceSliceCount
                d.ci_slices = attrs.computeInstanceSliceCount
                d.memory_mib = attrs.memorySizeMB
        gis = {g.gi.gi_id: g for g in self._enumerate(handle, model)}
        for d in devices:
            g = gis.get(d.gi_id)
            if g is None:  # enumeration refused or unavailable: name the GI from its MIG device
                g = gis[d.gi_id] = self._gi_from_device(d, model)
            g.devices.append(d)
        layout = []
        for gi_id in sorted(gis, key=lambda x: (x is None, x or 0)):
            g = gis[gi_id]
            g.devices.sort(key=lambda d: (d.ci_id is None, d.ci_id or 0))
            cis = tuple(_compute_instance(d, g.gi.profile, g.slices) for d in g.devices)
            g.gi = replace(g.gi, compute_instances=cis)
            layout.append(g)
        return layout

    def _load_profiles(self, handle: Any) -> list[_Profile]:
        c, i = self.calls, self.gpu
        count = getattr(c.nvml, "NVML_GPU_INSTANCE_PROFILE_COUNT", DEFAULT_PROFILE_COUNT)
        profiles = []
        for p in range(count):
            info = c("nvmlDeviceGetGpuInstanceProfileInfo", i, handle, p, key=p)
            if info is None or not getattr(info, "instanceCount", 0):
                continue
            name = getattr(info, "name", None)
            profiles.append(
                _Profile(
                    info.id,
                    normalise_profile_name(str(name)) if name else None,
                    info.sliceCount,
                    info.instanceCount,
                    info.multiprocessorCount,
                    info.memorySizeMB,
                )
            )
        return profiles

    def _enumerate(self, handle: Any, model: GpuModel | None) -> list[_Gi]:
        c, i, nvml = self.calls, self.gpu, self.calls.nvml
        if self._profiles is None:
            self._profiles = self._load_profiles(handle)
        array_type = getattr(nvml, "c_nvmlGpuInstance_t", None)
        if array_type is None:
            return []
        out = []
        for p in self._profiles:
            array = (array_type * p.instances)()
            count = ctypes.c_uint(0)
            listed = c(
                "nvmlDeviceGetGpuInstances", i, handle, p.profile_id, array, ctypes.byref(count), key=p.profile_id
            )
            if listed is None:
                continue
            known = model.profile_by_id(p.profile_id) if model else None
            name = p.name or (known.name if known else None)
            for k in range(min(count.value, p.instances)):
                info = c("nvmlGpuInstanceGetInfo", i, array[k], key="gi")
                if info is None:
                    continue
                gi = GpuInstance(
                    gi_id=info.id,
                    profile=name,
                    profile_id=info.profileId,
                    placement_start=info.placement.start,
                    placement_size=info.placement.size,
                    memory_total_mib=p.memory_mib,
                    sm_count=p.sm_count,
                )
                out.append(_Gi(gi, p.slices))
        return out

    @staticmethod
    def _gi_from_device(d: _MigDevice, model: GpuModel | None) -> _Gi:
        profile = None
        if model is not None and d.memory_mib is not None:
            guess = infer_profile(model, d.memory_mib)
            if guess is not None and (d.gi_slices is None or guess.compute_slices == d.gi_slices):
                profile = guess
        gi = GpuInstance(
            gi_id=d.gi_id,
            profile=profile.name if profile else None,
            profile_id=profile.gi_profile_id if profile else None,
            memory_total_mib=d.memory_mib,
            sm_count=profile.sm_count if profile else None,
        )
        return _Gi(gi, d.gi_slices)


def _compute_instance(d: _MigDevice, gi_profile: str | None, gi_slices: int | None) -> ComputeInstance:
    """A CI named as nvidia-smi does: the GI's profile when it spans the GI, '<n>c.<GI profile>' when not."""
    slices = gi_slices or d.gi_slices
    profile = gi_profile
    if gi_profile and d.ci_slices and slices and d.ci_slices < slices:
        profile = f"{d.ci_slices}c.{gi_profile}"
    return ComputeInstance(
        ci_id=d.ci_id, profile=profile, sm_count=d.sm_count, mig_uuid=d.uuid, mig_device_index=d.index
    )
