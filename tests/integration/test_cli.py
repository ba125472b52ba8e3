"""The command line: `gputui snapshot` on each kind of source, and errors as one line, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from gputui.cli import main
from gputui.cli import source_factory as factory
from gputui.core.errors import NvmlUnavailable
from gputui.core.model import ClusterSnapshot
from gputui.core.serialize import from_data, snapshot_to_json
from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader

NVSMI = FIXTURES / "nvidia-smi"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_snapshot_of_the_demo_shows_mig_ids_and_mps_clients(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run(capsys, "snapshot", "demo", "--at", "+8m")
    assert code == 0 and err == ""
    assert "2026-11-02 09:08:00 UTC" in out
    for text in (
        "MIG devices",
        "2c.3g.40gb",
        "1c.3g.40gb",
        "3g.20gb",
        "MIG enabled, no GPU instances",
        "MPS",
        "nvidia-cuda-mps-server",
        "M+C",
        "/tmp/nvidia-mps",
    ):
        assert text in out, text
    snap = RecordingReader(demo_recording()).frame(480)
    h100 = snap.node("node03").gpus[0]
    # every MIG device of the split GPU instance is listed with its GI and CI id and UUID
    for gi in h100.gpu_instances:
        for ci in gi.compute_instances:
            assert ci.mig_uuid in out
    pcts = {c.active_thread_percentage for g in snap.node("node04").gpus if g.mps for c in g.mps.clients}
    assert len(pcts) > 1 and all(f"{p}%" in out for p in pcts)


def test_json_round_trips_to_an_equal_snapshot(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "snapshot", "demo", "--json", "--at", "+100s")
    assert code == 0
    snap = from_data(ClusterSnapshot, json.loads(out))
    reader = RecordingReader(demo_recording())
    assert snap == reader.frame(100)
    assert json.loads(snapshot_to_json(snap)) == json.loads(out)


def test_snapshot_of_an_nvidia_smi_log(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "200")
    xml = next(NVSMI.glob("*a100*v12*.xml"))
    code, out, _ = run(capsys, "snapshot", str(xml))
    assert code == 0 and "NVIDIA A100-SXM4-80GB" in out and "1g.20gb" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["snapshot", "/no/such/file"], "/no/such/file: no such file"),
        (["snapshot", str(FIXTURES)], "is a directory"),
        (["snapshot", "demo", "--at", "yesterday"], "'yesterday' is not a time"),
        (["snapshot", "slurm:cluster"], "cluster: no such slurm.conf"),
    ],
)
def test_user_errors_are_one_line_with_exit_code_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_file_of_another_kind_names_the_file_and_what_was_expected(capsys) -> None:  # type: ignore[no-untyped-def]
    bad = next(NVSMI.glob("*help-query-gpu*"))
    code, _, err = run(capsys, "snapshot", str(bad))
    assert code == 2 and str(bad) in err and "expected" in err and err.count("\n") == 1


def test_without_a_driver_the_default_source_is_the_demo_and_says_so(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_driver():  # type: ignore[no-untyped-def]
        raise NvmlUnavailable("NVML not available: Driver Not Loaded")

    monkeypatch.setattr(factory, "open_nvml", no_driver)
    code, out, err = run(capsys, "snapshot")
    assert code == 0 and "demo recording (synthetic)" in out
    assert err == "gputui: NVML not available: Driver Not Loaded; showing the bundled demo recording instead\n"


def test_a_crashed_recording_opens_with_a_notice(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = demo_recording().read_bytes()
    torn = tmp_path / "torn.gtrec"
    reader = RecordingReader(demo_recording())
    torn.write_bytes(data[: reader.index.data_end - 7])  # cut into the last record; no index
    code, out, err = run(capsys, "snapshot", str(torn), "--json")
    assert code == 0 and "not closed cleanly" in err
    assert from_data(ClusterSnapshot, json.loads(out)).timestamp < reader.end_time


def test_python_dash_m_runs_without_a_traceback_on_bad_input() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "gputui", "snapshot", "/nonexistent.gtrec"], capture_output=True, text=True
    )
    assert p.returncode == 2 and p.stderr == "gputui: /nonexistent.gtrec: no such file\n"


def test_plan_says_where_a_cpu_job_starts_and_refuses_one_no_node_can_hold(capsys) -> None:  # type: ignore[no-untyped-def]
    spec = "node[01-04]:4:A100-40GB"
    code, out, _ = run(capsys, "plan", "--synthetic", spec, "--", "-c", "8", "--mem=32G", "--", "true")
    assert code == 0
    assert out.splitlines()[:2] == [
        "would start now on node01 (8 CPUs, 32 GiB per node)",
        "  node01: 8 of 64 free CPUs, 32 GiB of 512 GiB free memory, no GPU",
    ]
    assert "    CUDA_VISIBLE_DEVICES=\n" in out
    code, out, _ = run(capsys, "plan", "--synthetic", spec, "--", "--cpu-milli=2500", "--gpu-milli=460")
    assert code == 0 and "  node01: 2.5 of 64 free CPUs\n" in out and "46.0 % of the GPU" in out
    code, _, err = run(capsys, "plan", "--synthetic", spec, "--", "-c", "80", "--", "true")
    assert (code, err) == (2, "gputui: --cpus-per-task: needs 80 CPUs on a node; the largest node has 64\n")
