"""The one NVML call wrapper: real pynvml errors mapped to N/A, a lost GPU, or an older function version."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pynvml
import pytest

from gputui.sources.nvml_calls import GpuLost, NvmlCalls


def module(**functions):  # type: ignore[no-untyped-def]
    return SimpleNamespace(
        NVMLError=pynvml.NVMLError, NVMLLibraryMismatchError=pynvml.NVMLLibraryMismatchError, **functions
    )


def raising(code: int, log: list | None = None):  # type: ignore[no-untyped-def]
    def fn(*args):  # type: ignore[no-untyped-def]
        if log is not None:
            log.append(args)
        raise pynvml.NVMLError(code)

    return fn


@pytest.mark.parametrize(
    "code", [pynvml.NVML_ERROR_NOT_SUPPORTED, pynvml.NVML_ERROR_NO_PERMISSION, pynvml.NVML_ERROR_FUNCTION_NOT_FOUND]
)
def test_na_answers_are_none_and_not_asked_again(code, caplog):
    seen: list = []
    calls = NvmlCalls(module(nvmlDeviceGetFanSpeed=raising(code, seen)))
    with caplog.at_level(logging.INFO, logger="gputui.nvml"):
        assert [calls("nvmlDeviceGetFanSpeed", 0, "h0") for _ in range(3)] == [None, None, None]
    assert len(seen) == 1 and calls.count == 1
    assert len(caplog.records) == 1 and "nvmlDeviceGetFanSpeed" in caplog.records[0].getMessage()


def test_na_is_remembered_per_gpu_and_key():
    answers = {("h0", 0): 1410, ("h1", 0): 1410, ("h0", 2): 1593}

    def clock(h, kind):  # type: ignore[no-untyped-def]
        if (h, kind) == ("h1", 2):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return answers[(h, kind)]

    calls = NvmlCalls(module(nvmlDeviceGetClockInfo=clock))
    assert calls("nvmlDeviceGetClockInfo", 1, "h1", 2, key=2) is None
    assert calls("nvmlDeviceGetClockInfo", 1, "h1", 0, key=0) == 1410  # another clock of the same GPU
    assert calls("nvmlDeviceGetClockInfo", 0, "h0", 2, key=2) == 1593  # the same clock of another GPU
    calls.forget(1)
    calls("nvmlDeviceGetClockInfo", 1, "h1", 2, key=2)
    assert calls.count == 4  # asked again after forget


@pytest.mark.parametrize(
    "code", [pynvml.NVML_ERROR_GPU_IS_LOST, pynvml.NVML_ERROR_UNKNOWN, pynvml.NVML_ERROR_RESET_REQUIRED]
)
def test_lost_and_unknown_raise_gpu_lost_for_that_gpu(code):
    calls = NvmlCalls(module(nvmlDeviceGetPowerUsage=raising(code)))
    with pytest.raises(GpuLost) as e:
        calls("nvmlDeviceGetPowerUsage", 3, "h3")
    assert e.value.gpu == 3 and str(pynvml.NVMLError(code)) in e.value.reason


def test_not_found_is_quiet_and_asked_again(caplog):
    seen: list = []
    calls = NvmlCalls(module(nvmlDeviceGetMigDeviceHandleByIndex=raising(pynvml.NVML_ERROR_NOT_FOUND, seen)))
    with caplog.at_level(logging.INFO, logger="gputui.nvml"):
        assert calls("nvmlDeviceGetMigDeviceHandleByIndex", 0, "h0", 5) is None
        assert calls("nvmlDeviceGetMigDeviceHandleByIndex", 0, "h0", 5) is None
    assert len(seen) == 2 and caplog.records == []


def test_first_falls_back_to_older_versions_and_remembers():
    seen: list = []
    calls = NvmlCalls(
        module(
            nvmlDeviceGetComputeRunningProcesses_v3=raising(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND, seen),
            nvmlDeviceGetComputeRunningProcesses_v2=lambda h: [SimpleNamespace(pid=7)],
        )
    )
    names = (
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses",
    )
    for gpu in (0, 1, 0):
        assert [p.pid for p in calls.first(names, gpu, "h")] == [7]
    assert len(seen) == 1 and calls.count == 4


def test_first_stops_at_a_version_that_exists_but_has_no_answer():
    calls = NvmlCalls(
        module(
            f_v3=raising(pynvml.NVML_ERROR_NO_PERMISSION),
            f_v2=lambda h: pytest.fail("an older version must not be tried when the newer one answered"),
        )
    )
    assert calls.first(("f_v3", "f_v2"), 0, "h") is None


def test_an_unversioned_function_of_a_newer_nvidia_ml_py_on_an_older_driver():
    def unversioned(h):  # type: ignore[no-untyped-def]
        raise pynvml.NVMLLibraryMismatchError("use a versioned function")

    calls = NvmlCalls(module(f=unversioned))
    assert calls.first(("f_v9", "f"), 0, "h") is None  # f_v9 missing from the module, f mismatched


def test_a_bug_still_raises():
    calls = NvmlCalls(module(f=lambda: 1 / 0))
    with pytest.raises(ZeroDivisionError):
        calls("f", None)


def test_bytes_become_text():
    calls = NvmlCalls(module(nvmlSystemGetDriverVersion=lambda: b"550.54.15"))
    assert calls("nvmlSystemGetDriverVersion", None) == "550.54.15"
