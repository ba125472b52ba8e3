"""gputui's NVML source driven by a fake that patches pynvml's functions (as gpustat's tests do), and by
real pynvml code over an older driver's library that lacks the ``_v3`` process lists."""

from __future__ import annotations

import logging
import os

import pynvml
import pytest

from gputui.sources import nvml_patched
from gputui.sources.nvml import NvmlSource

PID = os.getpid()  # a process that exists, so that user and command come from /proc


def gpu(i: int, **kw) -> dict:
    g = dict(
        name="NVIDIA A100-SXM4-80GB",
        uuid=f"GPU-{i:08d}-aaaa-bbbb-cccc-000000000000",
        pci_bus_id=f"00000000:{i + 7:02X}:00.0",
        memory_total=81920,
        memory_used=1000 + i,
        util_gpu=10 * i,
        util_memory=5,
        temperature=40 + i,
        power_mw=100_000,
        power_limit_mw=400_000,
        fan=None,
        clock_graphics=1410,
        clock_sm=1410,
        clock_memory=1593,
        pstate=0,
        compute_mode=0,
        persistence=1,
        processes=[dict(pid=PID, used_memory=500 + i, type="C"), dict(pid=1, used_memory=7, type="G")],
    )
    g.update(kw)
    return g


SPEC = dict(driver="470.57.02", cuda=11040, gpus=[gpu(i) for i in range(3)])


@pytest.fixture
def restore_pynvml():
    saved = dict(vars(pynvml))
    yield
    now = vars(pynvml)
    for k in set(now) - set(saved):
        delattr(pynvml, k)
    for k, v in saved.items():
        if now.get(k) is not v:
            setattr(pynvml, k, v)
    pynvml._nvmlGetFunctionPointer_cache.clear()


def check(snap) -> None:
    node = snap.nodes[0]
    assert (node.driver_version, node.cuda_version) == ("470.57.02", "11.4")
    assert [g.lost for g in node.gpus] == [False] * 3
    for i, g in enumerate(node.gpus):
        assert (g.memory_used_mib, g.temperature_c, g.utilization_gpu) == (1000 + i, 40 + i, 10 * i)
        assert [(p.pid, p.type, p.used_memory_mib) for p in g.processes] == [(1, "G", 7), (PID, "C", 500 + i)]
        assert g.processes[1].user is not None and g.processes[1].command


def test_a_fake_that_patches_pynvmls_functions_drives_gputui(restore_pynvml, caplog):
    caplog.set_level(logging.INFO, "gputui.nvml")
    fake = nvml_patched.install(SPEC, "functions", count_calls=True)
    src = NvmlSource(pynvml, node_name="fake")
    check(src.poll())
    check(src.poll())
    # the unversioned lists answer; the _v3/_v2 ones (real pynvml code, no library loaded) were tried
    # once and are skipped since
    assert fake.calls["nvmlDeviceGetComputeRunningProcesses"] == 6
    assert fake.calls["nvmlDeviceGetGraphicsRunningProcesses"] == 6
    assert "nvmlDeviceGetComputeRunningProcesses_v3" in caplog.text


def test_an_older_driver_without_the_v3_functions(restore_pynvml):
    nvml_patched.install(SPEC, "driver")
    with pytest.raises(pynvml.NVMLError_FunctionNotFound):
        pynvml.nvmlDeviceGetComputeRunningProcesses_v3(pynvml.nvmlDeviceGetHandleByIndex(0))
    src = NvmlSource(pynvml, node_name="fake")
    check(src.poll())
    check(src.poll())
    assert (
        src.calls._variant[
            (
                "nvmlDeviceGetComputeRunningProcesses_v3",
                "nvmlDeviceGetComputeRunningProcesses_v2",
                "nvmlDeviceGetComputeRunningProcesses",
            )
        ]
        == "nvmlDeviceGetComputeRunningProcesses_v2"
    )


def test_an_older_nvidia_ml_py_without_the_v3_functions(restore_pynvml):
    """A pynvml module that lacks them altogether (AttributeError) falls back the same way."""
    nvml_patched.install(SPEC, "driver")
    for kind in ("Compute", "Graphics", "MPSCompute"):
        delattr(pynvml, f"nvmlDeviceGet{kind}RunningProcesses_v3")
    check(NvmlSource(pynvml, node_name="fake").poll())


def test_uninitialised_everywhere_is_still_a_lost_gpu(restore_pynvml):
    """Only a newer version that an older one replaces is skipped; a list no version of answers is the
    driver not answering, and the GPU is marked lost as before."""
    saved = pynvml.nvmlDeviceGetComputeRunningProcesses
    nvml_patched.install(SPEC, "functions")
    pynvml.nvmlDeviceGetComputeRunningProcesses = saved  # real code again: Uninitialized
    gpus = NvmlSource(pynvml, node_name="fake").poll().nodes[0].gpus
    assert [g.lost for g in gpus] == [True] * 3
