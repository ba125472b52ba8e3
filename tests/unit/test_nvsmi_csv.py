"""`nvidia-smi --query-gpu=... --format=csv` logs: header or not, units or not, grouping rows into frames."""

from __future__ import annotations

import calendar
import os
from pathlib import Path

import pytest

from gputui.core.errors import SourceError
from gputui.sources.nvsmi import load_nvsmi_log, sniff_nvsmi

NVSMI = Path(__file__).resolve().parents[2] / "fixtures" / "nvidia-smi"
P100 = NVSMI / "netdata-tesla-p100.csv"
# the columns of the netdata P100 capture, as `--query-gpu=` would have listed them
P100_FIELDS = [
    "name",
    "uuid",
    "fan.speed",
    "pstate",
    "memory.reserved",
    "memory.used",
    "memory.free",
    "utilization.gpu",
    "utilization.memory",
    "temperature.gpu",
    "power.draw",
    "clocks.current.graphics",
    "clocks.current.sm",
    "clocks.current.memory",
    "clocks.current.video",
]


def utc(*args: int) -> float:
    return float(calendar.timegm((*args, 0, 0, 0)))


def write(path: Path, text: str, mtime: float | None = None) -> Path:
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_tesla_p100_csv(tmp_path: Path) -> None:
    path = write(tmp_path / "p100.csv", P100.read_text(), mtime=1_700_000_000.0)
    log = load_nvsmi_log(path)
    assert log.kind == "csv"
    assert log.warnings == [f"{path}: no timestamp column; frames timed back from the file's modification time"]
    (frame,) = log.frames
    assert frame.timestamp == 1_700_000_000.0  # no timestamp column: the file's mtime
    assert frame.source == "nvidia-smi --query-gpu log p100.csv"
    (gpu,) = frame.nodes[0].gpus
    assert (gpu.index, gpu.name, gpu.uuid) == (0, "Tesla P100-PCIE-16GB", "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6")
    assert gpu.fan_percent is None  # [N/A], not 0
    assert (gpu.performance_state, gpu.memory_used_mib, gpu.memory_total_mib) == ("P0", 0, None)
    assert (gpu.utilization_gpu, gpu.utilization_memory, gpu.temperature_c, gpu.power_draw_w) == (0, 0, 37, 28.16)
    assert (gpu.clock_graphics_mhz, gpu.clock_sm_mhz, gpu.clock_memory_mhz) == (405, 405, 715)
    assert (gpu.pci_bus_id, gpu.compute_mode, gpu.power_limit_w) == (None, None, None)  # columns not queried


def test_noheader_needs_the_field_list(tmp_path: Path) -> None:
    data = P100.read_text().splitlines()[1] + "\n"
    path = write(tmp_path / "noheader.csv", data)
    assert sniff_nvsmi(path) == "csv"
    with pytest.raises(SourceError, match=r"noheader\.csv: CSV has no header row .*--fields index,name") as e:
        load_nvsmi_log(path)
    assert "\n" not in str(e.value)
    with_fields = load_nvsmi_log(path, fields=P100_FIELDS).frames[0].nodes[0].gpus
    with_header = load_nvsmi_log(P100).frames[0].nodes[0].gpus
    assert with_fields == with_header


def test_field_count_must_match_the_rows(tmp_path: Path) -> None:
    path = write(tmp_path / "noheader.csv", P100.read_text().splitlines()[1] + "\n")
    with pytest.raises(SourceError, match=r"noheader\.csv: 3 fields given but the CSV rows have 15 columns"):
        load_nvsmi_log(path, fields=P100_FIELDS[:3])


LOG_HEADER = (
    "timestamp, index, uuid, name, pci.bus_id, memory.total [MiB], memory.used [MiB], utilization.gpu [%], "
    "utilization.memory [%], temperature.gpu, power.draw [W], power.draw.instant [W], enforced.power.limit [W], "
    "power.limit [W], fan.speed [%], pstate, compute_mode, persistence_mode, mig.mode.current, mig.mode.pending, "
    "hostname, driver_version, serial\n"
)


def _row(t: str, i: int, used: str = "1024 MiB", util: str = "50 %", power: str = "300.50 W") -> str:
    return (
        f"{t}, {i}, GPU-0000000{i}-1111-2222-3333-444444444444, NVIDIA A100-SXM4-80GB, 00000000:0{i}:00.0, "
        f"81920 MiB, {used}, {util}, 10 %, 40, {power}, 310.25 W, 400.00 W, 500.00 W, [N/A], P0, Default, "
        "Enabled, Disabled, [N/A], dgx-07, 535.54.03, 1650522003820\n"
    )


def test_rows_group_into_frames_by_timestamp_and_gpu(tmp_path: Path) -> None:
    rows = [
        _row("2026/07/14 09:00:27.792", 0),
        _row("2026/07/14 09:00:27.795", 1, used="[N/A]", util="[Not Supported]"),  # a later ms, same poll
        _row("2026/07/14 09:00:28.791", 0, power="[N/A]"),
        _row("2026/07/14 09:00:28.794", 1, util="[Requested functionality has been deprecated]"),
        _row("2026/07/14 09:00:29.790", 0, used="[Unknown Error]"),
        _row("2026/07/14 09:00:29.793", 1),
    ]
    log = load_nvsmi_log(write(tmp_path / "poll.csv", LOG_HEADER + "".join(rows)))
    assert [f.gpu_count for f in log.frames] == [2, 2, 2]
    assert [f.timestamp for f in log.frames] == pytest.approx(
        [utc(2026, 7, 14, 9, 0, 27) + 0.792, utc(2026, 7, 14, 9, 0, 28) + 0.791, utc(2026, 7, 14, 9, 0, 29) + 0.790]
    )
    node = log.frames[0].nodes[0]
    assert (node.name, node.driver_version) == ("dgx-07", "535.54.03")  # hostname column names the node
    g0, g1 = node.gpus
    assert (g0.index, g0.uuid, g0.pci_bus_id) == (0, "GPU-00000000-1111-2222-3333-444444444444", "00000000:00:00.0")
    assert (g0.memory_total_mib, g0.memory_used_mib, g0.utilization_gpu, g0.utilization_memory) == (81920, 1024, 50, 10)
    assert (g1.memory_used_mib, g1.utilization_gpu) == (None, None)
    assert g0.power_draw_w == 300.5  # power.draw before power.draw.instant
    assert g0.power_limit_w == 400.0  # the enforced limit before power.limit
    assert (g0.fan_percent, g0.performance_state, g0.compute_mode) == (None, "P0", "Default")
    assert (g0.persistence_mode, g0.mig_mode_current, g0.mig_mode_pending) == (True, False, None)
    assert log.frames[1].nodes[0].gpus[0].power_draw_w == 310.25  # power.draw N/A: the instant reading
    assert log.frames[1].nodes[0].gpus[1].utilization_gpu is None
    assert log.frames[2].nodes[0].gpus[0].memory_used_mib is None


def test_nounits_values(tmp_path: Path) -> None:
    text = "timestamp, index, memory.used [MiB], power.draw [W], utilization.gpu [%]\n"
    text += "2026/07/14 09:00:27.792, 0, 1024, 300.50, 50\n2026/07/14 09:00:27.792, 1, [N/A], 61.00, [N/A]\n"
    (frame,) = load_nvsmi_log(write(tmp_path / "nounits.csv", text)).frames
    assert [(g.index, g.memory_used_mib, g.power_draw_w, g.utilization_gpu) for g in frame.nodes[0].gpus] == [
        (0, 1024, 300.5, 50),
        (1, None, 61.0, None),
    ]


def test_without_timestamps_frames_count_back_from_the_mtime(tmp_path: Path) -> None:
    text = "index, uuid, utilization.gpu [%]\n" + "".join(f"{i}, GPU-{i}, {n} %\n" for n in range(3) for i in range(2))
    log = load_nvsmi_log(write(tmp_path / "loop.csv", text, mtime=1_800_000_000.0))
    assert [f.timestamp for f in log.frames] == [1_799_999_998.0, 1_799_999_999.0, 1_800_000_000.0]
    assert [[g.utilization_gpu for g in f.nodes[0].gpus] for f in log.frames] == [[0, 0], [1, 1], [2, 2]]
    assert log.frames[0].nodes[0].name == "loop"


def test_without_a_gpu_column_equal_timestamps_make_a_frame(tmp_path: Path) -> None:
    text = "timestamp, name, temperature.gpu\n"
    text += "2026/07/14 09:00:27.792, A, 40\n2026/07/14 09:00:27.792, B, 41\n2026/07/14 09:00:28.792, A, 42\n"
    log = load_nvsmi_log(write(tmp_path / "t.csv", text))
    assert [[(g.index, g.name, g.temperature_c) for g in f.nodes[0].gpus] for f in log.frames] == [
        [(0, "A", 40), (1, "B", 41)],
        [(0, "A", 42)],
    ]


def test_neither_timestamp_nor_gpu_column_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot tell polls apart"):
        load_nvsmi_log(write(tmp_path / "x.csv", "name, temperature.gpu\nA, 40\n"))


def test_header_without_rows_and_short_rows(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"empty\.csv: CSV has no data rows"):
        load_nvsmi_log(write(tmp_path / "empty.csv", LOG_HEADER))
    cut = LOG_HEADER + _row("2026/07/14 09:00:27.792", 0) + _row("2026/07/14 09:00:28.792", 0)[:40]
    log = load_nvsmi_log(write(tmp_path / "cut.csv", cut))
    assert len(log.frames) == 1
    cut_warning = f"{tmp_path / 'cut.csv'}: last poll dropped: its last row is cut inside a value (log cut short?)"
    assert log.warnings == [cut_warning]
    short = LOG_HEADER + _row("2026/07/14 09:00:27.792", 0)[:40] + "\n" + _row("2026/07/14 09:00:28.792", 0)
    log = load_nvsmi_log(write(tmp_path / "short.csv", short))
    assert len(log.frames) == 1
    assert log.warnings == [
        f"{tmp_path / 'short.csv'}: 1 row(s) with a wrong number of columns skipped (first at line 2)"
    ]


def test_a_long_log_groups_every_poll(tmp_path: Path) -> None:
    polls, gpus = 2000, 8
    lines = [LOG_HEADER]
    for s in range(polls):
        stamp = f"2026/07/14 {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.000"
        lines += [_row(stamp, g, used=f"{(s // 100) * 10} MiB") for g in range(gpus)]
    log = load_nvsmi_log(write(tmp_path / "day.csv", "".join(lines)))
    assert len(log.frames) == polls
    assert all(f.gpu_count == gpus for f in log.frames)
    assert log.frames[-1].timestamp - log.frames[0].timestamp == polls - 1
    assert [g.index for g in log.frames[-1].nodes[0].gpus] == list(range(gpus))
    assert log.frames[-1].nodes[0].gpus[3].memory_used_mib == 190
    # a GPU whose row did not change shares the previous (immutable) snapshot
    assert log.frames[1].nodes[0].gpus[5] is log.frames[0].nodes[0].gpus[5]
    assert log.frames[100].nodes[0].gpus[5] is not log.frames[99].nodes[0].gpus[5]


def test_windows_line_ends_and_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "win.csv"
    path.write_bytes(b"\xef\xbb\xbf" + P100.read_bytes().replace(b"\n", b"\r\n"))
    assert sniff_nvsmi(path) == "csv"
    assert load_nvsmi_log(path).frames[0].nodes[0].gpus == load_nvsmi_log(P100).frames[0].nodes[0].gpus
