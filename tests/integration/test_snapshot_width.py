"""`gputui snapshot` fits 80 columns as nvidia-smi's table does: the least important columns are left out and
named, nothing people copy (MIG UUIDs, PIDs, whole commands) is lost when piped; a wrong --node or --at is an
error, not an empty answer."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from gputui.cli import main
from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader


def snapshot(capsys, monkeypatch, columns: int, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(["snapshot", "demo", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_at_80_columns_every_table_fits_and_every_uuid_and_command_is_there(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = snapshot(capsys, monkeypatch, 80)
    assert code == 0
    tables = [line for line in out.splitlines() if line[:1] in "┌│├└"]
    assert tables and max(cell_len(line) for line in tables) <= 80
    reader = RecordingReader(demo_recording())
    last = reader.frame(reader.frame_count - 1)
    for node in last.nodes:
        for g in node.gpus:
            for gi in g.gpu_instances:
                for ci in gi.compute_instances:
                    assert ci.mig_uuid is None or ci.mig_uuid in out  # on a line of its own
            for p in g.processes:
                assert str(p.pid) in out and (p.command is None or p.command in out)
    for kept in ("Name", "Memory-Usage", "GPU-Util", "Profile", "PID", "Process name"):
        assert kept in out
    assert "(not shown at this width: Persist-M, Bus-Id" in out and "…" in out


def test_wide_and_a_wide_terminal_show_every_column(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for columns, argv in ((80, ["--wide"]), (200, [])):
        code, out, _ = snapshot(capsys, monkeypatch, columns, *argv)
        assert code == 0 and "Bus-Id" in out and "Persist-M" in out and "MIG UUID" in out
        assert "not shown at this width" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--node", "node9"], "gputui: --node node9: no such node (nodes: node01, node02, node03, node04)"),
        (["--at", "08:00"], "gputui: --at 08:00: outside the recording, which runs from 2026-11-02 09:00:00 UTC"),
    ],
)
def test_an_unknown_node_or_a_time_outside_the_recording_is_an_error(capsys, monkeypatch, argv, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = snapshot(capsys, monkeypatch, 80, *argv)
    assert (code, out) == (2, "") and err.startswith(message) and err.count("\n") == 1
