"""nvidia_gpu_exporter capture bundles and the `nvidia-smi -q` text inside them."""

from __future__ import annotations

import calendar
from pathlib import Path

import pytest

from gputui.core.model import ProcessInfo
from gputui.sources.nvsmi import load_nvsmi_log, sniff_nvsmi
from gputui.sources.nvsmi.capture import mig_listing, read_sections
from gputui.sources.nvsmi.mig import ListedMig

NVSMI = Path(__file__).resolve().parents[2] / "fixtures" / "nvidia-smi"
MIG = NVSMI / "exporter-h100-mig-590.48.01.txt"
H100 = NVSMI / "exporter-h100-80gb-hbm3-590.48.01.txt"
L40S = NVSMI / "exporter-l40s-595.80.txt"

MIG_UUIDS = [f"MIG-0000000{n}-0000-0000-0000-00000000000{n}" for n in range(4)]


def utc(*args: int) -> float:
    return float(calendar.timegm((*args, 0, 0, 0)))


def test_h100_mig_bundle_phases_and_gpu() -> None:
    log = load_nvsmi_log(MIG)
    assert log.kind == "capture" and log.warnings == []
    idle, load = log.frames
    assert (idle.timestamp, load.timestamp) == (utc(2026, 7, 14, 9, 0, 27), utc(2026, 7, 14, 9, 0, 44))
    assert idle.source == f"nvidia-smi capture {MIG.name} (idle)"
    assert load.source == f"nvidia-smi capture {MIG.name} (load)"
    node = load.nodes[0]
    assert (node.name, node.driver_version, node.cuda_version) == (MIG.stem, "590.48.01", "13.1")
    (gpu,) = node.gpus
    assert (gpu.name, gpu.uuid, gpu.pci_bus_id) == (
        "NVIDIA H100 80GB HBM3",
        "GPU-00000000-0000-0000-0000-000000000000",
        "00000000:00:09.0",
    )
    assert (gpu.memory_total_mib, gpu.memory_used_mib) == (81559, 11125)
    assert (gpu.utilization_gpu, gpu.utilization_memory) == (None, None)  # N/A in MIG mode
    assert (gpu.mig_mode_current, gpu.mig_mode_pending, gpu.persistence_mode) == (True, True, True)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.temperature_c) == (432.21, 700.0, 53)
    assert (idle.nodes[0].gpus[0].power_draw_w, idle.nodes[0].gpus[0].memory_used_mib) == (71.27, 59)


def test_h100_mig_bundle_instances_named_by_the_listing() -> None:
    idle, load = load_nvsmi_log(MIG).frames
    for frame in (idle, load):
        gis = frame.nodes[0].gpus[0].gpu_instances
        assert [gi.gi_id for gi in gis] == [2, 3, 9, 10]
        assert [gi.profile for gi in gis] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
        assert [gi.profile_id for gi in gis] == [9, 14, 19, 19]
        assert [gi.memory_total_mib for gi in gis] == [40448, 20096, 9984, 9984]
        assert [gi.sm_count for gi in gis] == [60, 32, 16, 16]
        cis = [gi.compute_instances for gi in gis]
        assert all(len(c) == 1 for c in cis)
        assert [c[0].ci_id for c in cis] == [0, 0, 0, 0]
        assert [c[0].profile for c in cis] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
        assert [c[0].mig_device_index for c in cis] == [0, 1, 2, 3]
        assert [c[0].mig_uuid for c in cis] == MIG_UUIDS
    assert [gi.memory_used_mib for gi in load.nodes[0].gpus[0].gpu_instances] == [11091, 17, 9, 9]


def test_h100_mig_bundle_load_processes() -> None:
    gpu = load_nvsmi_log(MIG).frames[1].nodes[0].gpus[0]
    assert gpu.processes == (
        ProcessInfo(pid=21180, type="C", used_memory_mib=2296, command="/root/tools/memhog", gi_id=2, ci_id=0),
        ProcessInfo(pid=21181, type="C", used_memory_mib=1272, command="/root/tools/memhog", gi_id=2, ci_id=0),
        ProcessInfo(pid=21198, type="C", used_memory_mib=7484, command="./gpu_burn", gi_id=2, ci_id=0),
    )
    assert gpu.mps is None
    assert load_nvsmi_log(MIG).frames[0].nodes[0].gpus[0].processes == ()  # 'Processes : None'


def test_h100_bundle_without_mig() -> None:
    idle, load = load_nvsmi_log(H100).frames
    assert (idle.timestamp, load.timestamp) == (utc(2026, 7, 14, 8, 12, 38), utc(2026, 7, 14, 8, 12, 53))
    gpu = load.nodes[0].gpus[0]
    assert (gpu.mig_mode_current, gpu.gpu_instances) == (False, ())
    assert (gpu.utilization_gpu, gpu.utilization_memory, gpu.memory_used_mib) == (100, 11, 19818)
    assert (gpu.power_draw_w, gpu.temperature_c, gpu.clock_sm_mhz) == (629.45, 59, 1980)
    assert [(p.pid, p.used_memory_mib, p.gi_id) for p in gpu.processes] == [
        (11327, 2566, None),
        (11328, 1542, None),
        (11345, 15690, None),
    ]
    assert idle.nodes[0].gpus[0].processes == ()


def test_l40s_bundle() -> None:
    idle, load = load_nvsmi_log(L40S).frames
    assert load.nodes[0].driver_version == "595.80" and load.nodes[0].cuda_version == "13.2"
    a, b = idle.nodes[0].gpus[0], load.nodes[0].gpus[0]
    assert (a.name, a.memory_total_mib, a.mig_mode_current) == ("NVIDIA L40S", 46068, None)
    assert (a.utilization_gpu, a.utilization_memory) == (100, 9)  # as printed in the idle phase
    assert (b.utilization_gpu, b.utilization_memory, b.memory_used_mib) == (9, 2, 1235)
    assert [(p.pid, p.command, p.used_memory_mib) for p in b.processes] == [
        (20037, "ffmpeg", 538),
        (20038, "ffmpeg", 681),
    ]


def test_mig_listing_from_minus_l() -> None:
    _, sections = read_sections(MIG.read_text().splitlines())
    listing = mig_listing(next(s for s in sections if s.kind == "list"))
    assert listing == {
        0: {
            0: ListedMig("3g.40gb", MIG_UUIDS[0]),
            1: ListedMig("2g.20gb", MIG_UUIDS[1]),
            2: ListedMig("1g.10gb", MIG_UUIDS[2]),
            3: ListedMig("1g.10gb", MIG_UUIDS[3]),
        }
    }


def _query_text(capture: Path) -> str:
    """The `nvidia-smi -q` outputs of a capture, back to back as `nvidia-smi -q -l` writes them."""
    _, sections = read_sections(capture.read_text().splitlines())
    return "\n".join(line for s in sections if s.kind == "query" for line in s.lines) + "\n"


def test_plain_query_text_infers_the_same_mig_profiles(tmp_path: Path) -> None:
    path = tmp_path / "h100-mig-q.txt"
    path.write_text(_query_text(MIG))
    assert sniff_nvsmi(path) == "query-text"
    log = load_nvsmi_log(path)
    assert log.kind == "query-text" and len(log.frames) == 2
    assert log.frames[1].source == "nvidia-smi -q log h100-mig-q.txt"
    gis = log.frames[1].nodes[0].gpus[0].gpu_instances
    assert [(gi.gi_id, gi.profile, gi.profile_id, gi.sm_count) for gi in gis] == [
        (2, "3g.40gb", 9, 60),
        (3, "2g.20gb", 14, 32),
        (9, "1g.10gb", 19, 16),
        (10, "1g.10gb", 19, 16),
    ]
    assert [gi.compute_instances[0].profile for gi in gis] == ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]
    assert all(gi.compute_instances[0].mig_uuid is None for gi in gis)  # UUIDs only come from -L
    assert [p.pid for p in log.frames[1].nodes[0].gpus[0].processes] == [21180, 21181, 21198]


def test_capture_without_query_sections_falls_back_to_csv(tmp_path: Path) -> None:
    text = MIG.read_text().replace("# $ nvidia-smi -q\n", "# $ nvidia-smi -q (left out)\n")
    path = tmp_path / "mig-csv-only.txt"
    path.write_text(text)
    log = load_nvsmi_log(path)
    assert log.kind == "capture"
    idle, load = log.frames
    assert load.timestamp == pytest.approx(utc(2026, 7, 14, 9, 0, 44) + 0.579)
    assert load.source == "nvidia-smi capture mig-csv-only.txt (load)"
    gpu = load.nodes[0].gpus[0]
    assert (gpu.uuid, gpu.index, gpu.memory_total_mib, gpu.memory_used_mib) == (
        "GPU-00000000-0000-0000-0000-000000000000",
        0,
        81559,
        11125,
    )
    assert (gpu.utilization_gpu, gpu.fan_percent, gpu.mig_mode_current) == (None, None, True)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.temperature_c) == (433.78, 700.0, 53)
    assert load.nodes[0].name == "mig-csv-only"  # hostname is [N/A] in the capture
    assert load.nodes[0].driver_version == "590.48.01"
    assert idle.nodes[0].gpus[0].memory_used_mib == 59
