"""`--query-gpu` CSV logs as operators keep them, built from the captures' real rows.

Edited the way the field edits them (each test says how): a field list chosen as a `--query-gpu=` command
line would choose it, rows of two real single-GPU captures (H100 590.48.01 and L40S 595.80) interleaved as
the polls of one two-GPU host, with the poll times of a `-l` loop. The cells are nvidia-smi's own.
"""

from __future__ import annotations

import codecs
import io
import os
from pathlib import Path

import pytest
from nvsmi_variants import NVSMI, csv_log, csv_of, csv_rows

from gputui.core.errors import SourceError
from gputui.sources.nvsmi import load_nvsmi_log, sniff_nvsmi

H100 = csv_rows(NVSMI / "exporter-h100-80gb-hbm3-590.48.01.txt")
L40S = csv_rows(NVSMI / "exporter-l40s-595.80.txt")
R610 = NVSMI / "exporter-rtx-2080-super-610.57.04.txt"
UNITS = {"memory.total": "MiB", "memory.used": "MiB", "utilization.gpu": "%", "power.draw": "W"}
# real, unmasked UUIDs and serials of the telegraf/netdata XML fixtures, for the logs keyed by them
UUIDS = ("GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e", "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4")
SERIALS = ("0324217145110", "1650522003820")


def _at(row: dict[str, str], t: float, gpu: int) -> dict[str, str]:
    """The row at poll time ``t`` seconds after 2026/07/14 08:00:00, with its GPU's UUID and serial."""
    s = int(t)
    stamp = f"2026/07/14 08:{s // 60:02d}:{s % 60:02d}.{round((t - s) * 1000):03d}"
    return {**row, "timestamp": stamp, "uuid": UUIDS[gpu], "serial": SERIALS[gpu]}


def _write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    os.utime(path, (1_800_000_000.0, 1_800_000_000.0))
    return path


def _polls() -> list[dict[str, str]]:
    """Three polls of a two-GPU host, rows a second apart within a poll; the second poll lists its GPUs in the
    other order."""
    return [
        _at(H100[0], 0.0, 0),
        _at(L40S[0], 1.2, 1),
        _at(L40S[1], 60.1, 1),
        _at(H100[1], 61.0, 0),
        _at(H100[1], 120.0, 0),
        _at(L40S[1], 121.4, 1),
    ]


@pytest.mark.parametrize(
    "key",
    ["uuid", "pci.bus_id", "serial"],
)
def test_gpus_keep_their_place_without_an_index_column(tmp_path: Path, key: str) -> None:
    fields = ["timestamp", "name", key, "memory.total", "memory.used", "utilization.gpu", "power.draw"]
    log = load_nvsmi_log(_write(tmp_path, "host.csv", csv_of(_polls(), fields, UNITS)))
    assert log.warnings == []
    assert [f.gpu_count for f in log.frames] == [2, 2, 2]
    for frame in log.frames:  # the H100 stays GPU 0 and the L40S GPU 1, whatever order a poll lists them in
        names = {g.index: g.name for g in frame.nodes[0].gpus}
        assert names == {0: "NVIDIA H100 80GB HBM3", 1: "NVIDIA L40S"}
    second = {g.name: g.memory_used_mib for g in log.frames[1].nodes[0].gpus}
    assert second == {
        "NVIDIA H100 80GB HBM3": int(H100[1]["memory.used"].split()[0]),
        "NVIDIA L40S": int(L40S[1]["memory.used"].split()[0]),
    }


def test_a_poll_missing_a_row_does_not_take_the_next_polls_row(tmp_path: Path) -> None:
    """`-l 77`: the second poll lost its L40S row; the third poll's L40S row, 77 s later, starts a new frame."""
    rows = [_at(H100[0], 0.0, 0), _at(L40S[0], 1.0, 1), _at(H100[1], 77.0, 0)]
    rows += [_at(L40S[1], 154.4, 1), _at(H100[1], 155.0, 0)]
    fields = ["timestamp", "name", "pci.bus_id", "memory.used"]
    log = load_nvsmi_log(_write(tmp_path, "gap.csv", csv_of(rows, fields, UNITS)))
    assert [[g.name for g in f.nodes[0].gpus] for f in log.frames] == [
        ["NVIDIA H100 80GB HBM3", "NVIDIA L40S"],
        ["NVIDIA H100 80GB HBM3"],
        ["NVIDIA L40S", "NVIDIA H100 80GB HBM3"],
    ]
    assert [f.timestamp - log.frames[0].timestamp for f in log.frames] == pytest.approx([0.0, 77.0, 154.4])


def test_a_missing_column_reads_na_and_shows_without_a_unit(tmp_path: Path) -> None:
    from gputui.render.smi_tables import print_snapshot
    from gputui.render.terminal import Terminal

    log = load_nvsmi_log(_write(tmp_path, "m.csv", csv_of(_polls(), ["timestamp", "pci.bus_id", "memory.used"])))
    gpu = log.frames[-1].nodes[0].gpus[0]
    assert (gpu.memory_used_mib, gpu.memory_total_mib) == (int(H100[1]["memory.used"].split()[0]), None)
    buf = io.StringIO()
    print_snapshot(buf, log.frames[-1], terminal=Terminal(200, is_terminal=False, colour=False))
    shown = buf.getvalue()
    assert f"{gpu.memory_used_mib}MiB / N/A" in shown and "N/AMiB" not in shown


def test_the_610_header_of_every_field_is_sniffed(tmp_path: Path) -> None:
    text = csv_log(R610)
    assert len(text.splitlines()[0].encode()) == 7639  # driver 610's every --query-gpu field, with units
    path = _write(tmp_path, "all.csv", text)
    assert sniff_nvsmi(path) == "csv"
    log = load_nvsmi_log(path)
    node = log.frames[0].nodes[0]
    assert (node.driver_version, node.gpus[0].power_limit_w) == ("610.57.04", 250.0)  # kmd_version read


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_logs_with_a_bom(tmp_path: Path, encoding: str) -> None:
    """PowerShell's `nvidia-smi ... > log.csv` writes UTF-16LE with a BOM."""
    text = csv_log(NVSMI / "exporter-windows-rtx-2080-super-610.62.txt").replace("\n", "\r\n")
    bom = b"" if encoding == "utf-16" else (codecs.BOM_UTF16_LE if encoding.endswith("le") else codecs.BOM_UTF16_BE)
    path = tmp_path / "ps.csv"
    path.write_bytes(bom + text.encode(encoding))
    plain = _write(tmp_path, "plain.csv", text)
    assert sniff_nvsmi(path) == "csv"
    assert [f.nodes for f in load_nvsmi_log(path, node_name="n").frames] == [
        f.nodes for f in load_nvsmi_log(plain, node_name="n").frames
    ]


def test_utf16_xml_and_q_text(tmp_path: Path) -> None:
    for name in ("telegraf-dual-a5000-v13.xml",):
        src = NVSMI / name
        path = tmp_path / name
        path.write_bytes(src.read_text().encode("utf-16"))
        assert sniff_nvsmi(path) == "xml"
        assert [f.nodes for f in load_nvsmi_log(path, node_name="n").frames] == [
            f.nodes for f in load_nvsmi_log(src, node_name="n").frames
        ]


def test_a_log_without_timestamps_says_it_uses_the_mtime(tmp_path: Path) -> None:
    fields = ["name", "pci.bus_id", "memory.used"]
    path = _write(tmp_path, "nots.csv", csv_of(_polls(), fields, UNITS))
    log = load_nvsmi_log(path)
    assert log.warnings == [f"{path}: no timestamp column; frames timed back from the file's modification time"]
    assert [f.timestamp for f in log.frames] == [1_800_000_000.0 - 2, 1_800_000_000.0 - 1, 1_800_000_000.0]
    xml = (NVSMI / "telegraf-tesla-t4.xml").read_text()
    start, end = xml.index("<timestamp>"), xml.index("</timestamp>") + len("</timestamp>")
    path = _write(tmp_path, "nots.xml", xml[:start] + xml[end:])  # edited: the timestamp element removed
    log = load_nvsmi_log(path)
    assert log.warnings == [f"{path}: no timestamp; timed from the file's modification time, one second apart"]
    assert log.frames[0].timestamp == 1_800_000_000.0


def test_header_less_csv_needs_fields_and_the_cli_takes_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from gputui.cli import main

    fields = ["timestamp", "index", "name", "pci.bus_id", "memory.used", "memory.total"]
    path = _write(tmp_path, "noheader.csv", csv_of(_polls(), fields, UNITS).split("\n", 1)[1])
    with pytest.raises(SourceError, match="--fields index,name"):
        load_nvsmi_log(path)
    assert main(["snapshot", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--fields" in err
    given = ["--fields", ",".join(fields)]
    for command in (["snapshot", str(path), *given], ["plan", "--source", str(path), *given, "--", "--gpus=1"]):
        assert main(command) in (0, 1), command
        out = capsys.readouterr().out
        assert "L40S" in out or "would" in out
    with pytest.raises(SystemExit) as e:  # argparse's usage error: one line, exit 2
        main(["snapshot", str(path), "--fields", "index,,name"])
    assert e.value.code == 2 and "--fields: '' is not a --query-gpu field name" in capsys.readouterr().err


def test_a_key_printed_as_na_falls_back_to_the_next(tmp_path: Path) -> None:
    """GeForce boards print `serial` as [N/A]: the 610 Linux and Windows captures' rows (both so) as GPUs 0 and 1
    of one host (edited: index and poll times set), logged with serial and index."""
    linux, windows = csv_rows(R610), csv_rows(NVSMI / "exporter-windows-rtx-2080-super-610.62.txt")
    assert {r["serial"] for r in linux + windows} == {"[N/A]"}
    rows = [
        {**_at(r, t, 0), "index": str(i), "serial": r["serial"]} for t, i, r in ((0, 0, linux[0]), (0.5, 1, windows[0]))
    ]
    rows += [
        {**_at(r, t, 0), "index": str(i), "serial": r["serial"]}
        for t, i, r in ((15, 0, linux[1]), (15.5, 1, windows[1]))
    ]
    log = load_nvsmi_log(_write(tmp_path, "geforce.csv", csv_of(rows, ["timestamp", "serial", "index", "name"])))
    assert [[g.index for g in f.nodes[0].gpus] for f in log.frames] == [[0, 1], [0, 1]]
