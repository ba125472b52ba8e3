"""`nvidia-smi -q -x` logs: real captures of schema v11, v12 and v13, and `-l` streams built from them."""

from __future__ import annotations

import calendar
import re
from pathlib import Path

import pytest

import gputui.sources.nvsmi.xml_stream as xml_stream
from gputui.core.errors import SourceError
from gputui.core.model import MpsClient, MpsDaemon, ProcessInfo
from gputui.core.serialize import snapshot_from_json, snapshot_to_json
from gputui.sources.nvsmi import load_nvsmi_log

NVSMI = Path(__file__).resolve().parents[2] / "fixtures" / "nvidia-smi"


def utc(*args: int) -> float:
    return float(calendar.timegm((*args, 0, 0, 0)))


@pytest.mark.parametrize(
    ("name", "version", "gpus"),
    [
        ("telegraf-a10g.xml", 11, 1),
        ("telegraf-tesla-t4.xml", 11, 1),
        ("netdata-tesla-p100.xml", 11, 1),
        ("telegraf-a100-sxm4-v12.xml", 12, 1),
        ("telegraf-rtx-3080-v12.xml", 12, 1),
        ("netdata-rtx-4090-driver-535.xml", 12, 1),
        ("telegraf-dual-a5000-v13.xml", 13, 2),
    ],
)
def test_every_schema_version_loads(name: str, version: int, gpus: int) -> None:
    path = NVSMI / name
    assert f"nvsmi_device_v{version}.dtd" in path.read_text()[:300]
    log = load_nvsmi_log(path)
    assert log.kind == "xml" and log.warnings == [] and len(log.frames) == 1
    frame = log.frames[0]
    assert frame.gpu_count == gpus
    assert all(g.uuid and g.uuid.startswith("GPU-") for g in frame.nodes[0].gpus)
    assert frame.source == f"nvidia-smi -q -x log {name}"
    assert frame.nodes[0].name == path.stem


def test_a100_v12_in_mig_mode() -> None:
    frame = load_nvsmi_log(NVSMI / "telegraf-a100-sxm4-v12.xml").frames[0]
    assert frame.timestamp == utc(2023, 8, 4, 11, 44, 30)  # 'Fri Aug  4 11:44:30 2023', read as UTC
    node = frame.nodes[0]
    assert (node.driver_version, node.cuda_version) == ("535.54.03", "12.2")
    (gpu,) = node.gpus
    assert gpu.index == 0
    assert gpu.name == "NVIDIA A100-SXM4-80GB"
    assert gpu.uuid == "GPU-513536b6-7d19-9063-b049-1e69664bb298"
    assert gpu.pci_bus_id == "00000000:01:00.0"
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (81920, 50)
    assert (gpu.utilization_gpu, gpu.utilization_memory) == (None, None)  # N/A in MIG mode
    assert gpu.fan_percent is None
    assert (gpu.temperature_c, gpu.power_draw_w, gpu.power_limit_w) == (27, 67.03, 500.0)
    assert (gpu.clock_graphics_mhz, gpu.clock_sm_mhz, gpu.clock_memory_mhz) == (1275, 1275, 1593)
    assert (gpu.performance_state, gpu.compute_mode, gpu.persistence_mode) == ("P0", "Default", False)
    assert (gpu.mig_mode_current, gpu.mig_mode_pending) == (True, True)
    assert gpu.processes == () and gpu.mps is None
    assert [gi.gi_id for gi in gpu.gpu_instances] == [3, 4, 5, 6]
    for n, gi in enumerate(gpu.gpu_instances):
        assert (gi.profile, gi.profile_id, gi.sm_count) == ("1g.20gb", 15, 14)
        assert (gi.memory_total_mib, gi.memory_used_mib) == (19968, 12)
        assert (gi.placement_start, gi.placement_size) == (None, None)  # four placements fit 1g.20gb
        (ci,) = gi.compute_instances
        assert (ci.ci_id, ci.profile, ci.sm_count, ci.mig_device_index, ci.mig_uuid) == (0, "1g.20gb", 14, n, None)


def test_a10g_v11_with_power_readings_and_a_process() -> None:
    frame = load_nvsmi_log(NVSMI / "telegraf-a10g.xml").frames[0]
    (gpu,) = frame.nodes[0].gpus
    assert (gpu.name, gpu.pci_bus_id) == ("NVIDIA A10G", "00000000:00:1E.0")
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (23028, 22)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.fan_percent) == (25.58, 300.0, 0)
    assert (gpu.utilization_gpu, gpu.utilization_memory, gpu.performance_state) == (0, 0, "P8")
    assert (gpu.mig_mode_current, gpu.mig_mode_pending) == (None, None)  # N/A: no MIG on an A10G
    assert gpu.gpu_instances == ()
    assert gpu.processes == (ProcessInfo(pid=725, type="G", used_memory_mib=22, command="/usr/lib/xorg/Xorg"),)
    assert frame.nodes[0].driver_version == "515.105.01"


def test_tesla_t4_v11_processes() -> None:
    (gpu,) = load_nvsmi_log(NVSMI / "telegraf-tesla-t4.xml").frames[0].nodes[0].gpus
    assert (gpu.name, gpu.memory_total_mib, gpu.memory_used_mib) == ("Tesla T4", 15360, 1032)
    assert (gpu.clock_graphics_mhz, gpu.clock_memory_mhz, gpu.power_limit_w) == (585, 5000, 70.0)
    assert [(p.pid, p.type, p.used_memory_mib, p.command) for p in gpu.processes] == [
        (675, "G", 22, "/usr/lib/xorg/Xorg"),
        (5762, "C", 1005, "python"),
    ]
    assert all(p.gi_id is None and p.ci_id is None and p.user is None for p in gpu.processes)


def test_dual_a5000_v13_average_power_and_file_order_index() -> None:
    frame = load_nvsmi_log(NVSMI / "telegraf-dual-a5000-v13.xml").frames[0]
    assert frame.timestamp == utc(2025, 12, 30, 9, 46, 54)
    a, b = frame.nodes[0].gpus
    # the first GPU in the file has minor number 1: the index is nvidia-smi's order, not the minor number
    assert (a.index, a.pci_bus_id, a.uuid) == (0, "00000000:81:00.0", "GPU-12345678-aaaa-bbbb-cccc-0123456789ab")
    assert (b.index, b.pci_bus_id, b.uuid) == (1, "00000000:C1:00.0", "GPU-12345678-aaaa-bbbb-cccc-0123456789cd")
    assert (a.power_draw_w, b.power_draw_w) == (6.41, 13.60)  # average, not the instant 6.52 / 13.59
    assert (a.power_limit_w, a.memory_total_mib, a.memory_used_mib, b.memory_used_mib) == (230.0, 24564, 22437, 17253)
    assert (a.persistence_mode, a.fan_percent, a.temperature_c, b.temperature_c) == (True, 30, 13, 15)
    assert [(p.pid, p.used_memory_mib) for p in a.processes] == [(100477, 22430)]
    assert [(p.pid, p.used_memory_mib) for p in b.processes] == [(100477, 17246)]
    assert frame.nodes[0].cuda_version == "13.1"


def test_rtx_3080_windows_na_fields() -> None:
    (gpu,) = load_nvsmi_log(NVSMI / "telegraf-rtx-3080-v12.xml").frames[0].nodes[0].gpus
    assert gpu.persistence_mode is None  # N/A on Windows
    assert (gpu.utilization_gpu, gpu.utilization_memory) == (0, 37)
    assert [p.pid for p in gpu.processes] == [835, 1481, 2214, 4044, 42416]
    assert {p.type for p in gpu.processes} == {"G"}
    assert (gpu.processes[2].command or "").startswith("/opt/microsoft/msedge/msedge --type=gpu-process")


def test_rtx_4090_and_p100() -> None:
    (g4090,) = load_nvsmi_log(NVSMI / "netdata-rtx-4090-driver-535.xml").frames[0].nodes[0].gpus
    assert (g4090.name, g4090.power_draw_w, g4090.power_limit_w, g4090.processes) == (
        "NVIDIA GeForce RTX 4090",
        26.84,
        450.0,
        (),
    )
    (p100,) = load_nvsmi_log(NVSMI / "netdata-tesla-p100.xml").frames[0].nodes[0].gpus
    assert (p100.uuid, p100.memory_total_mib, p100.power_limit_w) == (
        "GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e",
        16384,
        250.0,
    )


def test_node_name_given_by_the_caller() -> None:
    log = load_nvsmi_log(NVSMI / "telegraf-a10g.xml", node_name="gpu-node-7")
    assert log.frames[0].nodes[0].name == "gpu-node-7"


def _stream(copies: int) -> tuple[str, list[str]]:
    src = (NVSMI / "telegraf-dual-a5000-v13.xml").read_text()
    stamp = "Tue Dec 30 09:46:54 2025"
    docs = [src.replace(stamp, f"Tue Dec 30 09:46:{54 + i} 2025") for i in range(copies)]
    assert all(stamp not in d for d in docs[1:])
    return "".join(docs), docs


@pytest.mark.parametrize("chunk", [7, 4096, 1 << 20])
def test_a_minus_l_stream_is_one_frame_per_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(xml_stream, "CHUNK_BYTES", chunk)  # declarations split across chunk edges
    stream, _ = _stream(3)
    path = tmp_path / "node1.xml"
    path.write_text(stream)
    log = load_nvsmi_log(path)
    assert log.kind == "xml" and log.warnings == []
    assert [f.timestamp for f in log.frames] == [utc(2025, 12, 30, 9, 46, s) for s in (54, 55, 56)]
    assert all(f.gpu_count == 2 and f.nodes[0].name == "node1" for f in log.frames)
    assert log.frames[0].nodes == log.frames[2].nodes


def test_a_truncated_stream_keeps_the_complete_documents(tmp_path: Path) -> None:
    stream, docs = _stream(3)
    path = tmp_path / "cut.xml"
    path.write_text(stream[: len(docs[0]) + len(docs[1]) + 5000])
    log = load_nvsmi_log(path)
    assert len(log.frames) == 2
    assert len(log.warnings) == 1 and "truncated" in log.warnings[0] and str(path) in log.warnings[0]


def test_a_damaged_document_in_the_middle_is_skipped(tmp_path: Path) -> None:
    _, docs = _stream(3)
    path = tmp_path / "damaged.xml"
    path.write_text(docs[0] + docs[1][:2000] + docs[2])
    log = load_nvsmi_log(path)
    assert [f.timestamp for f in log.frames] == [utc(2025, 12, 30, 9, 46, 54), utc(2025, 12, 30, 9, 46, 56)]
    assert len(log.warnings) == 1 and "damaged" in log.warnings[0]


def test_a_stream_without_any_complete_document_is_an_error(tmp_path: Path) -> None:
    _, docs = _stream(1)
    path = tmp_path / "short.xml"
    path.write_text(docs[0][:3000])
    with pytest.raises(SourceError, match=r"short\.xml: no complete nvidia-smi XML document .*truncated") as e:
        load_nvsmi_log(path)
    assert "\n" not in str(e.value)


def test_leading_blank_lines_and_bom_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.xml"
    path.write_bytes(b"\xef\xbb\xbf\n\n" + (NVSMI / "telegraf-a10g.xml").read_bytes())
    assert load_nvsmi_log(path).frames[0].nodes[0].gpus[0].name == "NVIDIA A10G"


def test_mps_clients_and_server_from_process_types(tmp_path: Path) -> None:
    src = (NVSMI / "telegraf-tesla-t4.xml").read_text()
    client = re.sub(r"<pid>5762</pid>\s*<type>C</type>", "<pid>5762</pid><type>M+C</type>", src)
    server = (
        "<process_info><gpu_instance_id>N/A</gpu_instance_id><compute_instance_id>N/A</compute_instance_id>"
        "<pid>5700</pid><type>C</type><process_name>nvidia-cuda-mps-server</process_name>"
        "<used_memory>30 MiB</used_memory></process_info></processes>"
    )
    path = tmp_path / "mps.xml"
    path.write_text(client.replace("</processes>", server, 1))
    (gpu,) = load_nvsmi_log(path).frames[0].nodes[0].gpus
    assert [p.type for p in gpu.processes] == ["G", "M+C", "C"]
    assert gpu.mps == MpsDaemon(
        running=True, server_pid=5700, clients=(MpsClient(pid=5762, memory_used_mib=1005, command="python"),)
    )
    plain = load_nvsmi_log(NVSMI / "telegraf-tesla-t4.xml").frames[0].nodes[0].gpus[0]
    assert plain.mps is None  # no MPS process seen: unknown, not "off"


@pytest.mark.parametrize(
    "name", sorted(p.name for p in NVSMI.iterdir() if p.suffix in (".xml", ".csv") or p.name.startswith("exporter-"))
)
def test_frames_match_the_model_types(name: str) -> None:
    # the JSON loader type-checks every field: ints stay ints, watts are floats, N/A stays None
    for frame in load_nvsmi_log(NVSMI / name).frames:
        assert snapshot_from_json(snapshot_to_json(frame)) == frame
