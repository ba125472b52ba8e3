"""The first-cut NVML source against a small fake of the nvidia-ml-py functions it calls."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gputui.core.errors import NvmlUnavailable
from gputui.sources.nvml import NvmlSource


class NVMLError(Exception):
    pass


def fake_nvml(init_error: str | None = None, unsupported: set[str] = frozenset()):  # type: ignore[no-untyped-def]
    """A module-like object answering from fixed data; names in ``unsupported`` raise NVMLError."""
    gpus = [
        dict(
            name="NVIDIA A100-SXM4-40GB",
            uuid="GPU-aaaa",
            mig=(0, 0),
            procs=[SimpleNamespace(pid=1, usedGpuMemory=2 << 30)],
        ),
        dict(name="NVIDIA A100-SXM4-40GB", uuid="GPU-bbbb", mig=(1, 1), procs=[]),
    ]
    mig_devs = {1: [("MIG-1", 1, 0, 42, 20 << 30, 1 << 30), ("MIG-2", 2, 0, 14, 5 << 30, 0)]}

    def fn(name, impl):  # type: ignore[no-untyped-def]
        def call(*a):  # type: ignore[no-untyped-def]
            if name in unsupported:
                raise NVMLError("Not Supported")
            return impl(*a)

        return call

    def init() -> None:
        if init_error:
            raise NVMLError(init_error)

    ns = SimpleNamespace(
        NVMLError=NVMLError, NVML_TEMPERATURE_GPU=0, NVML_CLOCK_GRAPHICS=0, NVML_CLOCK_SM=1, NVML_CLOCK_MEM=2
    )
    table = {
        "nvmlInit": init,
        "nvmlShutdown": lambda: None,
        "nvmlSystemGetDriverVersion": lambda: "550.54.15",
        "nvmlSystemGetCudaDriverVersion": lambda: 12040,
        "nvmlDeviceGetCount": lambda: len(gpus),
        "nvmlDeviceGetHandleByIndex": lambda i: ("gpu", i),
        "nvmlDeviceGetName": lambda h: gpus[h[1]]["name"],
        "nvmlDeviceGetUUID": lambda h: gpus[h[1]]["uuid"] if h[0] == "gpu" else mig_devs[h[1]][h[2]][0],
        "nvmlDeviceGetPciInfo": lambda h: SimpleNamespace(busId=f"00000000:0{h[1]}:00.0".encode()),
        "nvmlDeviceGetMemoryInfo": lambda h: (
            SimpleNamespace(total=40 << 30, used=3 << 30)
            if h[0] == "gpu"
            else SimpleNamespace(total=mig_devs[h[1]][h[2]][4], used=mig_devs[h[1]][h[2]][5])
        ),
        "nvmlDeviceGetUtilizationRates": lambda h: SimpleNamespace(gpu=55, memory=20),
        "nvmlDeviceGetTemperature": lambda h, s: 61,
        "nvmlDeviceGetPowerUsage": lambda h: 251_500,
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 400_000,
        "nvmlDeviceGetFanSpeed": lambda h: 30,
        "nvmlDeviceGetClockInfo": lambda h, c: 1410,
        "nvmlDeviceGetPerformanceState": lambda h: 0,
        "nvmlDeviceGetPersistenceMode": lambda h: 1,
        "nvmlDeviceGetComputeMode": lambda h: 3,
        "nvmlDeviceGetMigMode": lambda h: gpus[h[1]]["mig"],
        "nvmlDeviceGetMaxMigDeviceCount": lambda h: 7,
        "nvmlDeviceGetMigDeviceHandleByIndex": lambda h, j: (
            ("mig", h[1], j) if j < len(mig_devs.get(h[1], [])) else (_ for _ in ()).throw(NVMLError("Not Found"))
        ),
        "nvmlDeviceGetAttributes": lambda mh: SimpleNamespace(multiprocessorCount=mig_devs[mh[1]][mh[2]][3]),
        "nvmlDeviceGetGpuInstanceId": lambda mh: mig_devs[mh[1]][mh[2]][1],
        "nvmlDeviceGetComputeInstanceId": lambda mh: mig_devs[mh[1]][mh[2]][2],
        "nvmlDeviceGetComputeRunningProcesses": lambda h: gpus[h[1]]["procs"],
        "nvmlDeviceGetGraphicsRunningProcesses": lambda h: [],
    }
    for name, impl in table.items():
        setattr(ns, name, fn(name, impl) if name != "nvmlInit" else impl)
    return ns


def test_whole_gpu_fields_and_mig_devices() -> None:
    src = NvmlSource(fake_nvml(), node_name="box")
    snap = src.poll()
    node = snap.nodes[0]
    assert (node.name, node.driver_version, node.cuda_version) == ("box", "550.54.15", "12.4")
    g0, g1 = node.gpus
    assert (g0.name, g0.uuid, g0.pci_bus_id, g0.memory_total_mib, g0.memory_used_mib) == (
        "NVIDIA A100-SXM4-40GB",
        "GPU-aaaa",
        "00000000:00:00.0",
        40960,
        3072,
    )
    assert (g0.power_draw_w, g0.power_limit_w, g0.compute_mode, g0.performance_state) == (
        251.5,
        400.0,
        "Exclusive_Process",
        "P0",
    )
    assert g0.processes[0].pid == 1 and g0.processes[0].used_memory_mib == 2048 and g0.processes[0].type == "C"
    assert g0.mig_mode_current is False and g0.gpu_instances == ()
    assert [(gi.gi_id, gi.memory_total_mib, [c.mig_uuid for c in gi.compute_instances]) for gi in g1.gpu_instances] == [
        (1, 20480, ["MIG-1"]),
        (2, 5120, ["MIG-2"]),
    ]


def test_unsupported_queries_become_na_not_zero() -> None:
    src = NvmlSource(
        fake_nvml(unsupported={"nvmlDeviceGetFanSpeed", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetUtilizationRates"})
    )
    g = src.poll().nodes[0].gpus[0]
    assert g.fan_percent is None and g.power_draw_w is None and g.utilization_gpu is None
    assert g.power_limit_w == 400.0


def test_a_gpu_whose_handle_fails_is_marked_lost_and_others_still_update() -> None:
    nv = fake_nvml()
    good = nv.nvmlDeviceGetHandleByIndex

    def handle(i):  # type: ignore[no-untyped-def]
        if i == 0:
            raise NVMLError("GPU is lost")
        return good(i)

    nv.nvmlDeviceGetHandleByIndex = handle
    gpus = NvmlSource(nv).poll().nodes[0].gpus
    assert gpus[0].lost and gpus[0].name is None and not gpus[1].lost and gpus[1].uuid == "GPU-bbbb"


def test_no_driver_is_one_clear_line() -> None:
    with pytest.raises(NvmlUnavailable, match="^NVML not available: Driver Not Loaded$"):
        NvmlSource(fake_nvml(init_error="Driver Not Loaded"))
