"""Logs cut short while they were written: every format, every real fixture, cut at 25 %, 50 % and 99 %.

A cut log gives only complete frames (the same as the whole file's first frames) and one warning line more
than the whole file, or, when nothing complete is left, one error line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from nvsmi_variants import CAPTURES, XMLS, csv_log, q_text_stream, xml_stream

from gputui.core.errors import SourceError
from gputui.sources.nvsmi import load_nvsmi_log

NVSMI = Path(__file__).resolve().parents[2] / "fixtures" / "nvidia-smi"


def _variants() -> list[tuple[str, str, bytes]]:
    out: list[tuple[str, str, bytes]] = []
    for xml in XMLS:
        out.append(("xml", xml.name, xml.read_bytes()))
        out.append(("xml", f"{xml.stem}-stream.xml", xml_stream(xml).encode()))
    for cap in CAPTURES:
        out.append(("capture", cap.name, cap.read_bytes()))
        out.append(("query-text", f"{cap.stem}-q.txt", q_text_stream(cap).encode()))
        out.append(("csv", f"{cap.stem}.csv", csv_log(cap).encode()))
    return out


VARIANTS = _variants()


def _load(path: Path) -> tuple[list[object], list[str]] | str:
    try:
        log = load_nvsmi_log(path, node_name="n")
    except SourceError as e:
        return str(e)
    return [f.nodes for f in log.frames], [w.replace(str(path.parent), "DIR") for w in log.warnings]


@pytest.mark.parametrize(("kind", "name", "data"), VARIANTS, ids=[v[1] for v in VARIANTS])
def test_cut_logs_keep_only_complete_frames(tmp_path: Path, kind: str, name: str, data: bytes) -> None:
    whole_path = tmp_path / "whole" / name
    whole_path.parent.mkdir()
    whole_path.write_bytes(data)
    whole = _load(whole_path)
    assert not isinstance(whole, str), whole
    whole_frames, whole_warnings = whole
    assert load_nvsmi_log(whole_path).kind == kind
    for share in (0.25, 0.50, 0.99):
        cut_path = tmp_path / f"cut{int(share * 100)}" / name
        cut_path.parent.mkdir()
        cut_path.write_bytes(data[: int(len(data) * share)])
        os.utime(cut_path, (os.stat(whole_path).st_mtime,) * 2)
        got = _load(cut_path)
        if isinstance(got, str):  # nothing complete left: one line naming the file
            assert "\n" not in got and got.startswith(str(cut_path)), got
            continue
        frames, warnings = got
        assert frames == whole_frames[: len(frames)], f"{share:.0%}: a frame differs from the whole log's"
        assert len(frames) < len(whole_frames) or kind == "capture"
        new = [w for w in warnings if w not in whole_warnings]
        assert len(new) == 1 and len(warnings) == len(whole_warnings) + 1, f"{share:.0%}: {warnings}"
        assert "cut short" in new[0] or "truncated" in new[0], new[0]


def test_a_lone_csv_row_without_units_cannot_be_told_cut() -> None:
    """The known limit: netdata's one-row `nounits` CSV has lost its last newline, like a cut row would; with
    no unit to miss and no other row to compare with, its last row is kept."""
    p100 = NVSMI / "netdata-tesla-p100.csv"
    assert not p100.read_bytes().endswith(b"\n")
    (frame,) = load_nvsmi_log(p100).frames
    assert frame.nodes[0].gpus[0].clock_memory_mhz == 715
