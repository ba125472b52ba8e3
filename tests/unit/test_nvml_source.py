"""The NVML source against the fake NVML, driven by the demo recording and real nvidia-smi captures."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pynvml
import pytest
from conftest import FIXTURES
from fakes.proc_tree import user_of, write_node

from gputui.core.errors import NvmlUnavailable
from gputui.core.model import GpuSnapshot, MpsDaemon, NodeSnapshot
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml
from gputui.sources.nvml_fake_gpm import gpm_capable
from gputui.sources.nvsmi import load_nvsmi_log
from gputui.sources.recording import RecordingReader

DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"


@pytest.fixture(scope="module")
def demo_frame():
    r = RecordingReader(DEMO)
    try:
        yield r.frame(300)
    finally:
        r.close()


def source(fake: FakeNvml, proc: Path, **kw) -> NvmlSource:
    return NvmlSource(fake, node_name=fake.node.name, proc_root=str(proc), users=user_of, **kw)


def canon(g: GpuSnapshot) -> GpuSnapshot:
    """Processes in PID order (the collector's order); everything else compared as is."""
    return replace(g, processes=tuple(sorted(g.processes, key=lambda p: p.pid)))


def expect(node: NodeSnapshot, users: bool = True) -> list[GpuSnapshot]:
    """What the collector must report for ``node``: NVML's view, with /proc's users and MPS daemons;
    a GPU with no daemon is known to have none (the whole fake /proc is visible). A first poll has no GPM
    figures yet; a GPU without GPM says why."""
    out = []
    for g in node.gpus:
        procs = g.processes if users else tuple(replace(p, user=None, command=None) for p in g.processes)
        na = None if gpm_capable(g.name) else f"no GPM on {g.name} (it needs Hopper or newer)"
        out.append(canon(replace(g, processes=procs, mps=g.mps or MpsDaemon(running=False), activity_na=na)))
    return out


def test_demo_mig_node_round_trips(demo_frame, tmp_path):
    node = demo_frame.node("node03")  # an H100 whose 3g.40gb GI is split into 2c + 1c compute instances
    fake = FakeNvml(node)
    write_node(tmp_path, fake.node)
    snap = source(fake, tmp_path).poll()
    got = snap.nodes[0]
    assert (got.name, got.driver_version, got.cuda_version) == ("node03", "550.90.07", "12.4")
    assert [canon(g) for g in got.gpus] == expect(fake.node)
    gi = got.gpus[0].gpu_instances[0]
    assert (gi.gi_id, gi.profile, gi.profile_id, gi.placement_start, gi.placement_size, gi.sm_count) == (
        1,
        "3g.40gb",
        9,
        4,
        4,
        60,
    )
    assert [(c.ci_id, c.profile, c.sm_count, c.mig_device_index) for c in gi.compute_instances] == [
        (0, "2c.3g.40gb", 32, 0),
        (1, "1c.3g.40gb", 16, 1),
    ]
    assert gi.compute_instances[1].mig_uuid == "MIG-84d9657e-293f-0030-b922-4235e63f2840"
    grace = next(p for p in got.gpus[0].processes if p.user == "grace")
    assert (grace.gi_id, grace.ci_id, grace.command.split()[:2]) == (1, 1, ["python", "preprocess.py"])


def test_demo_mps_node_round_trips(demo_frame, tmp_path):
    node = demo_frame.node("node04")  # MPS on both A100s, one control daemon
    fake = FakeNvml(node)
    write_node(tmp_path, fake.node)
    got = source(fake, tmp_path).poll().nodes[0]
    assert [canon(g) for g in got.gpus] == expect(fake.node)
    g1 = got.gpus[1]
    assert g1.mps is not None
    assert (g1.mps.control_pid, g1.mps.server_pid, g1.mps.pipe_directory, g1.mps.log_directory) == (
        714558,
        714956,
        "/tmp/nvidia-mps",
        "/var/log/nvidia-mps",
    )
    assert [(c.pid, c.active_thread_percentage, c.memory_used_mib) for c in g1.mps.clients] == [
        (715117, 100, 11200),
        (715354, 50, 5400),
    ]
    assert {p.pid: p.type for p in g1.processes} == {715117: "M+C", 715354: "M+C", 714956: "C"}


def test_mps_daemon_whose_environment_is_refused(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node04"))
    write_node(tmp_path, fake.node, mps_env_readable=False)
    m = source(fake, tmp_path).poll().nodes[0].gpus[0].mps
    # found through its server among the GPU's processes; its directories are N/A, not guessed
    assert m is not None and (m.running, m.control_pid, m.server_pid) == (True, 714558, 714956)
    assert m.pipe_directory is None and m.log_directory is None


def test_mps_clients_without_a_visible_daemon(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node04"))
    m = source(fake, tmp_path).poll().nodes[0].gpus[1].mps  # empty /proc: the daemon lives elsewhere
    assert m is not None and m.running and m.control_pid is None
    assert [c.pid for c in m.clients] == [715117, 715354] and m.clients[0].user is None


def test_real_a100_mig_capture(tmp_path):
    frame = load_nvsmi_log(FIXTURES / "nvidia-smi" / "telegraf-a100-sxm4-v12.xml").frames[-1]
    fake = FakeNvml.from_snapshot(frame)
    got = source(fake, tmp_path).poll().nodes[0]
    assert [canon(g) for g in got.gpus] == expect(fake.node)
    gis = got.gpus[0].gpu_instances
    assert [
        (gi.gi_id, gi.profile, gi.profile_id, gi.memory_total_mib, gi.memory_used_mib, gi.sm_count) for gi in gis
    ] == [(gid, "1g.20gb", 15, 19968, 12, 14) for gid in (3, 4, 5, 6)]
    assert sorted((gi.placement_start, gi.placement_size) for gi in gis) == [(0, 2), (2, 2), (4, 2), (6, 2)]
    assert got.gpus[0].utilization_gpu is None  # not supported in MIG mode: N/A, not 0


@pytest.mark.parametrize("frame_no", [0, 1])
def test_real_h100_mig_capture_idle_and_loaded(tmp_path, frame_no):
    frame = load_nvsmi_log(FIXTURES / "nvidia-smi" / "exporter-h100-mig-590.48.01.txt").frames[frame_no]
    fake = FakeNvml.from_snapshot(frame)
    got = source(fake, tmp_path).poll().nodes[0]
    assert [canon(g) for g in got.gpus] == expect(fake.node, users=False)
    g = got.gpus[0]
    assert [(gi.gi_id, gi.profile, gi.compute_instances[0].mig_uuid) for gi in g.gpu_instances] == [
        (2, "3g.40gb", "MIG-00000000-0000-0000-0000-000000000000"),
        (3, "2g.20gb", "MIG-00000001-0000-0000-0000-000000000001"),
        (9, "1g.10gb", "MIG-00000002-0000-0000-0000-000000000002"),
        (10, "1g.10gb", "MIG-00000003-0000-0000-0000-000000000003"),
    ]
    if frame_no == 1:
        assert {(p.pid, p.gi_id, p.ci_id) for p in g.processes} == {(21180, 2, 0), (21181, 2, 0), (21198, 2, 0)}


def test_unsupported_and_refused_are_na_logged_once_and_not_asked_again(demo_frame, tmp_path, caplog):
    fake = FakeNvml(demo_frame.node("node01"))
    fake.fail("nvmlDeviceGetPowerUsage", gpu=2, error=pynvml.NVML_ERROR_NOT_SUPPORTED)
    fake.fail("nvmlDeviceGetComputeRunningProcesses_v3", gpu=0, error=pynvml.NVML_ERROR_NO_PERMISSION)
    src = source(fake, tmp_path)
    with caplog.at_level(logging.INFO, logger="gputui.nvml"):
        for _ in range(3):
            gpus = src.poll().nodes[0].gpus
    assert gpus[2].power_draw_w is None and gpus[2].power_limit_w is not None
    assert gpus[1].power_draw_w == demo_frame.node("node01").gpus[1].power_draw_w
    assert all(p.type != "C" for p in gpus[0].processes)  # compute list refused on GPU 0 only
    assert any(p.type == "C" for p in gpus[1].processes)
    assert fake.calls["nvmlDeviceGetPowerUsage"] == 3 * 4 - 2  # GPU 2 asked once in three polls
    lines = [r.getMessage() for r in caplog.records]
    assert sum("nvmlDeviceGetPowerUsage on GPU 2" in m for m in lines) == 1
    assert sum("nvmlDeviceGetComputeRunningProcesses_v3 on GPU 0" in m for m in lines) == 1


def test_a_gpu_lost_mid_session_is_marked_while_the_others_update_and_it_comes_back(demo_frame, tmp_path):
    r = RecordingReader(DEMO)
    frames = [r.frame(i).node("node01") for i in (100, 101, 102, 103)]
    r.close()
    fake = FakeNvml(frames[0])
    fake.fail("nvmlDeviceGetMemoryInfo", gpu=1, error=pynvml.NVML_ERROR_GPU_IS_LOST, after=2)
    src = source(fake, tmp_path)
    for k in range(2):
        fake.load(frames[k])
        assert not any(g.lost for g in src.poll().nodes[0].gpus)
    fake.load(frames[2])
    gpus = src.poll().nodes[0].gpus
    lost = gpus[1]
    want = frames[2].gpus[1]
    assert lost.lost and (lost.uuid, lost.name, lost.pci_bus_id, lost.memory_total_mib) == (
        want.uuid,
        want.name,
        want.pci_bus_id,
        want.memory_total_mib,
    )
    assert lost.memory_used_mib is None and lost.temperature_c is None and lost.processes == ()
    for i in (0, 2, 3):
        assert not gpus[i].lost and gpus[i].temperature_c == frames[2].gpus[i].temperature_c
    fake.heal("nvmlDeviceGetMemoryInfo", gpu=1)
    fake.load(frames[3])
    back = src.poll().nodes[0].gpus[1]
    assert not back.lost and back.memory_used_mib == frames[3].gpus[1].memory_used_mib


def test_unknown_error_also_marks_the_gpu_lost(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node03"))
    fake.fail("nvmlDeviceGetMigDeviceHandleByIndex", gpu=0, error=pynvml.NVML_ERROR_UNKNOWN)
    gpus = source(fake, tmp_path).poll().nodes[0].gpus
    assert gpus[0].lost and gpus[0].gpu_instances == () and not gpus[1].lost and len(gpus[1].gpu_instances) == 2


def test_driver_gone_marks_every_gpu_lost_and_a_later_poll_recovers(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node01"))
    src = source(fake, tmp_path)
    src.poll()
    fake.fail(None, None, error=pynvml.NVML_ERROR_DRIVER_NOT_LOADED)
    gpus = src.poll().nodes[0].gpus
    assert len(gpus) == 4 and all(g.lost and g.uuid for g in gpus)
    fake.heal()
    assert not any(g.lost for g in src.poll().nodes[0].gpus)


def test_a_driver_without_the_newer_functions(demo_frame, tmp_path):
    node = NodeSnapshot("mixed", demo_frame.node("node03").gpus + demo_frame.node("node04").gpus, "470.57.02", "11.4")
    node = replace(node, gpus=tuple(replace(g, index=i) for i, g in enumerate(node.gpus)))
    fake = FakeNvml(node)
    write_node(tmp_path, fake.node)
    for kind in ("Compute", "Graphics", "MPSCompute"):
        fake.fail(f"nvmlDeviceGet{kind}RunningProcesses_v3", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
    fake.fail("nvmlDeviceGetMPSComputeRunningProcesses_v2", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
    fake.fail("nvmlDeviceGetMPSComputeRunningProcesses", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
    fake.fail("nvmlDeviceGetGpuInstanceProfileInfo", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
    fake.fail("nvmlSystemGetCudaDriverVersion_v2", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
    src = source(fake, tmp_path)
    src.poll()
    got = src.poll().nodes[0]
    assert got.cuda_version == "11.4"
    mig_gpu, mps_gpu = got.gpus[0], got.gpus[2]
    # processes through the v2 functions; GPU instances named from their MIG devices, placements N/A
    assert {p.pid for p in mig_gpu.processes} == {p.pid for p in node.gpus[0].processes}
    assert [(gi.gi_id, gi.profile, gi.placement_start) for gi in mig_gpu.gpu_instances] == [
        (1, "3g.40gb", None),
        (3, "2g.20gb", None),
        (7, "1g.10gb", None),
        (8, "1g.10gb", None),
    ]
    assert [c.profile for c in mig_gpu.gpu_instances[0].compute_instances] == ["2c.3g.40gb", "1c.3g.40gb"]
    # without the MPS query the clients are unknown; the daemon still comes from /proc
    assert mps_gpu.mps is not None and mps_gpu.mps.control_pid == 714558 and mps_gpu.mps.clients == ()
    assert {p.type for p in mps_gpu.processes} == {"C"}
    assert fake.calls["nvmlDeviceGetComputeRunningProcesses_v3"] == 1  # asked once, then the v2 one only
    assert fake.calls["nvmlDeviceGetGpuInstanceProfileInfo"] == 1


def test_an_older_nvidia_ml_py_without_the_functions(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node04"))
    write_node(tmp_path, fake.node)
    fake.remove(
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlSystemGetCudaDriverVersion_v2",
    )
    got = source(fake, tmp_path).poll().nodes[0]
    assert [canon(g) for g in got.gpus] == expect(fake.node)


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded"),
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found"),
    ],
)
def test_no_driver_is_one_clear_line(demo_frame, code, text):
    with pytest.raises(NvmlUnavailable, match=f"^NVML not available: {text}$"):
        NvmlSource(FakeNvml(demo_frame.node("node01"), init_error=code))


def test_mig_layout_is_reread_when_it_changes(demo_frame, tmp_path):
    node = demo_frame.node("node03")
    fake = FakeNvml(node)
    src = source(fake, tmp_path, mig_refresh_every=3)
    assert len(src.poll().nodes[0].gpus[1].gpu_instances) == 2
    g1 = node.gpus[1]
    empty = replace(g1.gpu_instances[1], gi_id=5, compute_instances=(), memory_used_mib=None)
    fake.load(replace(node, gpus=(node.gpus[0], replace(g1, gpu_instances=(g1.gpu_instances[0], empty)))))
    # the 3g GI was replaced by one without a compute instance: its MIG device vanished, read at once
    assert [(gi.gi_id, len(gi.compute_instances)) for gi in src.poll().nodes[0].gpus[1].gpu_instances] == [
        (1, 1),
        (5, 0),
    ]
    gi5 = src.poll().nodes[0].gpus[1].gpu_instances[1]
    assert (gi5.profile, gi5.memory_total_mib, gi5.memory_used_mib) == ("3g.40gb", 40448, None)


def test_steady_state_nvml_calls_per_gpu(demo_frame, tmp_path):
    fake = FakeNvml(demo_frame.node("node01"))  # four whole GPUs
    src = source(fake, tmp_path)
    src.poll()
    before = src.calls.count
    src.poll()
    per_gpu = (src.calls.count - before - 1) / 4  # minus nvmlDeviceGetCount
    # 13 queries (MIG mode, memory, utilization, power, limit, P-state, compute mode, persistence, 3 clocks,
    # temperature, fan) + 3 process lists, less the fan these datacenter GPUs do not have: N/A is not asked again
    assert all(g.fan_percent is None for g in demo_frame.node("node01").gpus)
    assert per_gpu == 13 + 3 - 1


def test_mig_processes_per_instance_when_the_whole_gpu_list_is_refused(demo_frame, tmp_path):
    # NVML gives an unprivileged caller a MIG GPU's processes only per MIG device
    fake = FakeNvml(demo_frame.node("node03"))
    write_node(tmp_path, fake.node)
    for name in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v3"):
        fake.fail(name, error=pynvml.NVML_ERROR_NO_PERMISSION, on_mig=False)
    src = source(fake, tmp_path)
    for _ in range(2):
        got = src.poll().nodes[0]
        assert [canon(g) for g in got.gpus] == expect(fake.node)
    assert {(p.pid, p.gi_id, p.ci_id) for p in got.gpus[0].processes} == {
        (353138, 1, 0),
        (353402, 3, 0),
        (353866, 1, 1),
        (353929, 8, 0),
    }
