"""A fake NVML made by patching the real ``pynvml`` module, the way gpustat's tests drive gpustat.

Two shapes, as a program meets them (see ``install``):

- ``functions``: pynvml's Python functions are replaced (``pynvml.nvmlDeviceGetName = ...``), the
  unversioned process lists included; no library is loaded, so every function left unpatched (the
  ``_v3`` and ``_v2`` process lists) raises NVMLError_Uninitialized from inside real pynvml.
- ``driver``: the same Python patches, plus a stand-in for the C library (``pynvml.nvmlLib``) of an
  older driver: the process lists exist only unversioned and as ``_v2`` (no ``_v3``), memory only as v1;
  real pynvml code calls them through ``_nvmlGetFunctionPointer`` with ctypes arguments, and raises
  NVMLError_FunctionNotFound for the symbols the driver lacks. Other symbols answer NOT_SUPPORTED.

Standalone on purpose (stdlib and pynvml only): the one-shot benchmark loads this file into gputui and
nvitop alike through a sitecustomize, and neither must be handed a head start by the fake's imports.
The GPUs are plain dicts (``spec_of`` in gputui.bench.oneshot writes them from a snapshot).
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace
from typing import Any

import pynvml

MIB = 1 << 20
NO_ID = 0xFFFFFFFF
ENV = "GPUTUI_FAKE_PYNVML"  # path of a JSON spec; read by install_from_env()
#: Symbols a driver of the 470 series lacks (nvml.h of that driver; nvitop's fallbacks cover the same).
OLD_DRIVER_LACKS = frozenset(
    {
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        "nvmlDeviceGetMemoryInfo_v2",
        "nvmlDeviceGetTemperatureV",
        "nvmlDeviceGetDriverModel_v2",
        "nvmlDeviceGetConfComputeMemSizeInfo",
        "nvmlDeviceGetRunningProcessDetailList",
    }
)
_KINDS = {"Compute": "C", "Graphics": "G", "MPSCompute": "M"}


class Handle:
    """A device handle, as NVML hands out opaque pointers."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"<fake GPU {self.index}>"


def _na() -> pynvml.NVMLError:
    return pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)


class Patched:
    """The fake's state: the GPUs it answers for, and a count of calls per function."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.gpus: list[dict[str, Any]] = spec["gpus"]
        self.handles = [Handle(i) for i in range(len(self.gpus))]
        self.calls: dict[str, int] = {}

    def gpu(self, h: Any) -> dict[str, Any]:
        return self.gpus[h.index]

    def value(self, h: Any, key: str) -> Any:
        v = self.gpu(h).get(key)
        if v is None:
            raise _na()
        return v

    def procs(self, h: Any, kind: str) -> list[dict[str, Any]]:
        return [p for p in self.gpu(h).get("processes", ()) if kind in p.get("type", "C")]


def _python_functions(f: Patched) -> dict[str, Any]:
    """Replacements for pynvml's Python functions, by name."""
    v = f.value

    def memory(h: Any, version: Any = None) -> Any:
        total, used = v(h, "memory_total") * MIB, v(h, "memory_used") * MIB
        return SimpleNamespace(total=total, used=used, free=total - used, reserved=0)

    def util(h: Any) -> Any:
        return SimpleNamespace(gpu=v(h, "util_gpu"), memory=v(h, "util_memory"))

    def pci(h: Any) -> Any:
        bus = v(h, "pci_bus_id")
        return SimpleNamespace(busId=bus, busIdLegacy=bus[4:], domain=0, bus=h.index, device=0, pciDeviceId=0)

    def procs(kind: str) -> Any:
        def listing(h: Any) -> list[Any]:
            return [
                SimpleNamespace(
                    pid=p["pid"],
                    usedGpuMemory=p["used_memory"] * MIB,
                    gpuInstanceId=NO_ID,
                    computeInstanceId=NO_ID,
                )
                for p in f.procs(h, kind)
            ]

        return listing

    clocks = {pynvml.NVML_CLOCK_GRAPHICS: "clock_graphics", pynvml.NVML_CLOCK_SM: "clock_sm", 2: "clock_memory"}
    return {
        "nvmlInit": lambda: None,
        "nvmlInitWithFlags": lambda flags: None,
        "nvmlShutdown": lambda: None,
        "nvmlSystemGetDriverVersion": lambda: f.spec["driver"],
        "nvmlSystemGetCudaDriverVersion": lambda: f.spec["cuda"],
        "nvmlDeviceGetCount": lambda: len(f.gpus),
        "nvmlDeviceGetHandleByIndex": lambda i: f.handles[i],
        "nvmlDeviceGetIndex": lambda h: h.index,
        "nvmlDeviceGetName": lambda h: v(h, "name"),
        "nvmlDeviceGetUUID": lambda h: v(h, "uuid"),
        "nvmlDeviceGetPciInfo": pci,
        "nvmlDeviceGetMemoryInfo": memory,
        "nvmlDeviceGetUtilizationRates": util,
        "nvmlDeviceGetTemperature": lambda h, sensor: v(h, "temperature"),
        "nvmlDeviceGetPowerUsage": lambda h: v(h, "power_mw"),
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: v(h, "power_limit_mw"),
        "nvmlDeviceGetPowerManagementLimit": lambda h: v(h, "power_limit_mw"),
        "nvmlDeviceGetFanSpeed": lambda h: v(h, "fan"),
        "nvmlDeviceGetClockInfo": lambda h, kind: v(h, clocks.get(kind, "")),
        "nvmlDeviceGetPerformanceState": lambda h: v(h, "pstate"),
        "nvmlDeviceGetComputeMode": lambda h: v(h, "compute_mode"),
        "nvmlDeviceGetPersistenceMode": lambda h: v(h, "persistence"),
        "nvmlDeviceGetMigMode": lambda h: [0, 0],
        "nvmlDeviceGetComputeRunningProcesses": procs("C"),
        "nvmlDeviceGetGraphicsRunningProcesses": procs("G"),
        "nvmlDeviceGetMPSComputeRunningProcesses": procs("M"),
    }


class OldDriverLibrary:
    """The C library of an older driver, as ctypes would expose it: functions taking ctypes arguments and
    returning NVML return codes. Symbols in ``OLD_DRIVER_LACKS`` are missing (AttributeError, which pynvml
    turns into NVMLError_FunctionNotFound); any other symbol the fake has no value for is NOT_SUPPORTED."""

    def __init__(self, fake: Patched) -> None:
        self._fake = fake
        for kind, letter in _KINDS.items():
            fn = self._process_list(letter)
            setattr(self, f"nvmlDeviceGet{kind}RunningProcesses", fn)
            setattr(self, f"nvmlDeviceGet{kind}RunningProcesses_v2", fn)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in OLD_DRIVER_LACKS:
            raise AttributeError(name)
        return lambda *args: pynvml.NVML_ERROR_NOT_SUPPORTED

    def _process_list(self, kind: str) -> Any:
        def call(handle: Any, c_count: Any, c_procs: Any) -> int:
            found = self._fake.procs(handle, kind)
            count = c_count._obj
            if not found:
                count.value = 0
                return pynvml.NVML_SUCCESS
            if c_procs is None or count.value < len(found):
                count.value = len(found)
                return pynvml.NVML_ERROR_INSUFFICIENT_SIZE
            fields = {name for name, _ in type(c_procs[0])._fields_}
            for i, p in enumerate(found):
                c_procs[i].pid = p["pid"]
                c_procs[i].usedGpuMemory = p["used_memory"] * MIB
                for name in ("gpuInstanceId", "computeInstanceId"):
                    if name in fields:
                        setattr(c_procs[i], name, NO_ID)
            count.value = len(found)
            return pynvml.NVML_SUCCESS

        return call

    def nvmlInitWithFlags(self, flags: Any) -> int:
        return pynvml.NVML_SUCCESS

    def nvmlInit_v2(self) -> int:
        return pynvml.NVML_SUCCESS

    def nvmlShutdown(self) -> int:
        return pynvml.NVML_SUCCESS

    def nvmlSystemGetCudaDriverVersion_v2(self, c_version: Any) -> int:
        c_version._obj.value = self._fake.spec["cuda"]
        return pynvml.NVML_SUCCESS

    def nvmlDeviceGetMemoryInfo(self, handle: Any, c_memory: Any) -> int:
        g = self._fake.gpu(handle)
        if g.get("memory_total") is None or g.get("memory_used") is None:
            return pynvml.NVML_ERROR_NOT_SUPPORTED
        m = c_memory._obj
        m.total, m.used = g["memory_total"] * MIB, g["memory_used"] * MIB
        m.free = m.total - m.used
        return pynvml.NVML_SUCCESS

    def nvmlDeviceGetTemperature(self, handle: Any, sensor: Any, c_temp: Any) -> int:
        t = self._fake.gpu(handle).get("temperature")
        if t is None:
            return pynvml.NVML_ERROR_NOT_SUPPORTED
        c_temp._obj.value = t
        return pynvml.NVML_SUCCESS


def install(spec: dict[str, Any], shape: str = "functions", count_calls: bool = False) -> Patched:
    """Patch ``pynvml`` to answer from ``spec`` in the given shape ("functions" or "driver")."""
    if shape not in ("functions", "driver"):
        raise ValueError(f"unknown shape {shape!r}")
    fake = Patched(spec)
    for name, fn in _python_functions(fake).items():
        if shape == "driver" and name.endswith("RunningProcesses"):
            continue  # real pynvml code, onto the driver's symbols
        setattr(pynvml, name, _counted(fake, name, fn) if count_calls else fn)
    pynvml._nvmlGetFunctionPointer_cache.clear()
    pynvml.nvmlLib = OldDriverLibrary(fake) if shape == "driver" else None
    return fake


def _counted(fake: Patched, name: str, fn: Any) -> Any:
    def call(*args: Any, **kw: Any) -> Any:
        fake.calls[name] = fake.calls.get(name, 0) + 1
        return fn(*args, **kw)

    return call


def install_from_env() -> Patched | None:
    """``install`` from the JSON file named by $GPUTUI_FAKE_PYNVML (a sitecustomize calls this)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as fh:
        spec = json.load(fh)
    return install(spec, spec.get("shape", "driver"))
