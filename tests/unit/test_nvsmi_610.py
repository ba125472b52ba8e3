"""Driver 610 layouts (`-q` text of 610.57.04 on Linux and 610.62 on Windows, real exporter captures) and the
spelling tables that make such changes one line each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from nvsmi_variants import NVSMI, q_text_stream

from gputui.sources.nvsmi import load_nvsmi_log
from gputui.sources.nvsmi.spellings import CSV_COLUMNS, TREE_TABLES

LINUX = NVSMI / "exporter-rtx-2080-super-610.57.04.txt"
WINDOWS = NVSMI / "exporter-windows-rtx-2080-super-610.62.txt"


@pytest.mark.parametrize(("capture", "driver"), [(LINUX, "610.57.04"), (WINDOWS, "610.62")])
def test_610_nested_power_limit_and_kmd_version(tmp_path: Path, capture: Path, driver: str) -> None:
    stream = tmp_path / "q.txt"
    stream.write_text(q_text_stream(capture))
    for path in (capture, stream):
        log = load_nvsmi_log(path)
        assert log.warnings == []
        for frame in log.frames:
            node = frame.nodes[0]
            assert (node.driver_version, node.cuda_version) == (driver, "13.3")  # no "[Deprecated; ...]"
            (gpu,) = node.gpus
            assert gpu.power_limit_w == 250.0  # GPU Power Readings > GPU Ceiling Power Limit > Current Power Limit
            assert gpu.power_draw_w is not None and gpu.power_draw_w < 250.0  # instantaneous: the average is N/A
    idle = load_nvsmi_log(capture).frames[0].nodes[0].gpus[0]
    assert idle.power_draw_w == {LINUX: 38.89, WINDOWS: 37.21}[capture]


def test_the_deprecated_keys_alone_lose_their_note(tmp_path: Path) -> None:
    """Edited: the 610 `KMD Version` / `CUDA UMD Version` lines removed, as a tool that keeps only the old keys
    would; the deprecated keys' bracketed note is still stripped."""
    text = "".join(
        ln for ln in q_text_stream(LINUX).splitlines(keepends=True) if not ln.startswith(("KMD Version", "CUDA UMD"))
    )
    path = tmp_path / "old-keys.txt"
    path.write_text(text)
    node = load_nvsmi_log(path).frames[0].nodes[0]
    assert (node.driver_version, node.cuda_version) == ("610.57.04", "13.3")


def test_unknown_new_keys_are_harmless(tmp_path: Path) -> None:
    """Edited: a section and keys no driver has printed yet, inserted where a new driver would add them."""
    text = q_text_stream(LINUX)
    extra = "    Quantum Flux Readings\n        Flux Capacitance                      : 1.21 GW\n"
    text = text.replace("    Fan Speed", extra + "    Fan Speed").replace("KMD Version", "Future Key : 7\nKMD Version")
    plain, edited = tmp_path / "plain.txt", tmp_path / "edited.txt"
    plain.write_text(q_text_stream(LINUX))
    edited.write_text(text)
    assert [f.nodes for f in load_nvsmi_log(edited, node_name="n").frames] == [
        f.nodes for f in load_nvsmi_log(plain, node_name="n").frames
    ]


def test_snapshot_header_shows_the_bare_versions(
    capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gputui.cli import main

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["snapshot", os.fspath(LINUX)]) == 0
    out = capsys.readouterr().out
    assert "Driver Version: 610.57.04   CUDA Version: 13.3" in out and "Deprecated" not in out
    assert "38W / 250W" not in out and "97W / 250W" in out  # the load frame's 97.75 W, truncated as nvidia-smi does


def test_every_spelling_says_where_it_was_seen() -> None:
    for fmt, tables in TREE_TABLES.items():
        for table in tables:
            for field, _convert, spellings in table:
                assert spellings, (fmt, field)
                assert all(path and seen for path, seen in spellings), (fmt, field)
                assert "not yet seen" not in spellings[0][1], (fmt, field)  # a seen spelling comes first
        gpu_fields = [f for f, _, _ in tables[0]]
        assert gpu_fields == [f for f, _, _ in TREE_TABLES["xml"][0]], fmt  # both formats fill the same fields
    assert all(seen for _field, _convert, seen in CSV_COLUMNS.values())
