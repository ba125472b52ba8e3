"""`gputui record` end to end: a real process stopped by SIGTERM / SIGINT, conversions, appending, errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import FIXTURES, REPO

from gputui.bench.sources import nvml_poll
from gputui.cli import main
from gputui.sources.recording import RecordingReader

DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_the_recording_cleanly(tmp_path, sig):
    out = tmp_path / "live.gtrec"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.Popen(
        [sys.executable, "-m", "gputui", "record", "demo", "-o", str(out), "--interval", "0.02"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = p.stderr.readline()  # written once the first frame is in the file
        assert first.startswith(f"gputui: recording bundled demo recording (synthetic) to {out} frame by frame")
        p.send_signal(sig)
        rest = p.stderr.read()
        assert p.wait(timeout=60) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert f"(stopped by {signal.Signals(sig).name})" in rest
    r, demo = RecordingReader(out), RecordingReader(DEMO)
    assert r.index.clean and not r.damaged  # the index was written: a clean close, not a recovered file
    n = r.frame_count
    assert 1 <= n < demo.frame_count
    assert f"wrote {n} frames" in rest
    assert r.frame(n - 1) == demo.frame(n - 1) and r.frame(0) == demo.frame(0)


def test_convert_an_nvidia_smi_log_and_read_it_back(tmp_path, capsys):
    out = tmp_path / "a100.gtrec"
    log = FIXTURES / "nvidia-smi" / "telegraf-a100-sxm4-v12.xml"
    assert main(["record", str(log), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["snapshot", str(out), "--json"]) == 0
    from_recording = json.loads(capsys.readouterr().out)
    assert main(["snapshot", str(log), "--json"]) == 0
    from_log = json.loads(capsys.readouterr().out)
    from_recording.pop("source"), from_log.pop("source")
    assert from_recording == from_log
    assert RecordingReader(out).meta["source"].startswith("nvidia-smi log telegraf-a100-sxm4-v12.xml")


def test_duration_and_appending(tmp_path, capsys):
    out = tmp_path / "d.gtrec"
    assert main(["record", "demo", "-o", str(out), "--duration", "30s"]) == 0
    err = capsys.readouterr().err
    demo = RecordingReader(DEMO)
    n_events = sum(e.timestamp <= demo.timestamp(29) for e in demo.events)
    assert (
        err.endswith(f"gputui: wrote 30 frames and {n_events} events to {out}\n") and n_events == 6
    )  # the demo's first 30 s
    assert RecordingReader(out).frame_count == 30
    # the same frames again would go back in time: refused in one line, the file left as it was
    assert main(["record", "demo", "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would come before the recording's end" in err
    r = RecordingReader(out)
    assert r.frame_count == 30 and r.index.clean


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["demo", "--interval", "0"], "--interval 0: must be more than 0 seconds"),
        (["demo", "--duration", "soon"], "'soon' is not a duration"),
        (["no-such-file.gtrec"], "no-such-file.gtrec: no such file"),
    ],
)
def test_mistakes_are_one_line(tmp_path, capsys, args, message):
    out = tmp_path / "y.gtrec"
    assert main(["record", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_live_default_without_a_driver_says_what_to_do(tmp_path, capsys, monkeypatch):
    from gputui.cli import source_factory as factory
    from gputui.core.errors import NvmlUnavailable

    def no_driver():  # type: ignore[no-untyped-def]
        raise NvmlUnavailable("NVML not available: Driver Not Loaded")

    monkeypatch.setattr(factory, "open_nvml", no_driver)
    assert main(["record", "-o", str(tmp_path / "z.gtrec")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gputui: NVML not available: Driver Not Loaded; name a SOURCE to record instead")
    assert not (tmp_path / "z.gtrec").exists()


def test_the_poll_benchmark_runs_without_a_gpu(capsys):
    assert nvml_poll.main(["--fake", "--polls", "3", "--gpus", "8"]) == 0
    out = capsys.readouterr().out
    assert "fake NVML, 8 GPUs" in out and "NVML calls per poll: " in out
    calls = float(out.split("NVML calls per poll: ")[1].split()[0])
    assert 8 * 12 <= calls <= 8 * 30
