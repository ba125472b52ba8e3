"""The radar's rows as text and data: durations, memory, the unit's name, the overview's marks, hostile strings."""

from __future__ import annotations

import pytest

from gputui.core.idle import Holder, IdleRadar, IdleRow, UnitKey
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.dashboard.radar.marks import idle_marks
from gputui.dashboard.radar.rows import duration_text, memory_text, row_data, row_texts


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "-"), (0, "0s"), (59.9, "59s"), (60, "1m"), (3599, "59m"), (3600, "1h00m"), (7500, "2h05m"),
     (90000, "1d01h")],
)  # fmt: skip
def test_durations(seconds: float | None, text: str) -> None:
    assert duration_text(seconds) == text


def test_memory() -> None:
    assert (memory_text(None), memory_text(900), memory_text(20_480)) == ("N/A", "900 MiB", "20.0 GiB")


HOSTILE_NODE = UnitKey("n\x1b]0;x\x07", 0)


def _row(holder: Holder) -> IdleRow:
    return IdleRow(HOSTILE_NODE, holder, "idle", 100.0, 700.0, 2048, 1, 3, 1, "gpu")


def test_strings_from_data_are_plain_text() -> None:
    row = _row(Holder("4\x1b[2J", "eve\u202e", "train\r\x1b[31m", 0.0))
    cells = row_texts(row, 800.0)
    assert cells["job"] == "4\\x1b[2J train\\r\\x1b[31m" and cells["user"] == "eve\\u202e"
    assert cells["node"] == "n\\x1b]0;x\\x07"
    assert (cells["idle"], cells["memory"], cells["util"], cells["since"]) == ("11m", "2.0 GiB", "max 3 %", "00:01:40")
    assert row_data(row)["user"] == "eve\u202e"  # JSON keeps the data; json.dumps escapes it


def test_marks_name_the_longest_idle_unit_or_count_them() -> None:
    gpu = GpuSnapshot(0, utilization_gpu=0, memory_used_mib=10)
    snap = ClusterSnapshot(0, (NodeSnapshot("n", (gpu, GpuSnapshot(1, utilization_gpu=0))),))
    holds = {UnitKey("n", 0, "mps", "a"): Holder("a"), UnitKey("n", 0, "mps", "b"): Holder("b"),
             UnitKey("n", 1): Holder("c")}  # fmt: skip
    radar = IdleRadar(window_s=60)
    for t in (0, 30, 60):
        res = radar.step(snap.with_time(t), holds)
    assert idle_marks(res) == {"n/0": "idle 2×", "n/1": "idle 1m"}


def test_the_benchmark_runs() -> None:
    from gputui.bench.idle_radar import main

    assert main(["--frames", "12", "--rounds", "1"]) == 0
