"""`gputui export` from the command line: the endpoint on loopback, the errors a user can cause (one line, exit
2, nothing of theirs touched), and the backfill file read back with prometheus_client's OpenMetrics parser."""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from export_process import running_export
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

from gputui.cli import main
from gputui.export.server import is_loopback, parse_listen

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_endpoint_serves_metrics_on_loopback_and_stops_cleanly(tmp_path: Path) -> None:
    with running_export(tmp_path / "state", "demo", "--at", "+5m", "--paused") as (url, proc):
        with urllib.request.urlopen(url) as r:
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            body = r.read().decode()
        assert 'DCGM_FI_DEV_GPU_UTIL{gpu="1"' in body and 'hpc_job="48212"' in body
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url.replace("/metrics", "/"))
        assert e.value.code == 404
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert proc.stdout is not None and "serving http://127.0.0.1:" in proc.stdout.read()


def test_listen_addresses() -> None:
    assert parse_listen("127.0.0.1:9400") == ("127.0.0.1", 9400)
    assert parse_listen(":9400") == ("127.0.0.1", 9400)  # no host: loopback, not every address
    assert parse_listen("[::1]:9400") == ("::1", 9400)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7") and not is_loopback("gpu-host")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "demo", "--listen", "9400"], "expected HOST:PORT"),
        (["export", "demo", "--listen", "127.0.0.1:99999"], "the port must be a number from 1 to 65535"),
        (["export", "demo", "--interval", "0"], "must be more than 0 seconds"),
        (["export", "--openmetrics", "x.om"], "needs a recording or an nvidia-smi log"),
        (["export", "no-such-file.gtrec", "--openmetrics", "x.om"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("gputui: ")
    assert not (tmp_path / "x.om").exists()


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "gputui", "export", "demo", "--no-jobs", "--listen",
                            f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "in use" in r.stderr


def test_an_existing_backfill_file_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine.om"
    out.write_text("precious\n")
    assert main(["export", "demo", "--openmetrics", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "precious\n"


def test_backfill_of_an_nvidia_smi_log_parses_as_openmetrics(tmp_path: Path) -> None:
    log = FIXTURES / "nvidia-smi" / "exporter-h100-mig-590.48.01.txt"  # a real `nvidia-smi -q` of MIG instances
    out = tmp_path / "log.om"
    assert main(["export", str(log), "--openmetrics", str(out)]) == 0
    text = out.read_text()
    assert text.endswith("# EOF\n")
    fams = {f.name: f for f in parse_openmetrics(text)}  # raises on interleaved families, a missing EOF, bad lines
    assert "DCGM_FI_DEV_FB_USED" in fams
    assert all(s.timestamp is not None for f in fams.values() for s in f.samples)
    assert any("GPU_I_PROFILE" in s.labels for s in fams["DCGM_FI_DEV_FB_USED"].samples)


def test_backfill_of_a_recording_carries_recorded_jobs_in_time_order(tmp_path: Path) -> None:
    # the demo's first 50 s (the strict parser is slow on all 601 frames; the promtool test takes them all)
    rec = tmp_path / "first-50s.gtrec"
    assert main(["record", "demo", "-o", str(rec), "--duration", "50s", "-q"]) == 0
    out = tmp_path / "demo.om"
    assert main(["export", str(rec), "--openmetrics", str(out)]) == 0
    fams = {f.name: f for f in parse_openmetrics(out.read_text())}
    util = fams["DCGM_FI_DEV_GPU_UTIL"].samples
    held = [s for s in util if s.labels.get("hpc_job") == "48212"]  # the torchrun job, started at 45 s
    assert held and {s.labels["gpu"] for s in held} == {"2", "3"}
    times = [float(s.timestamp) for s in util if s.labels.get("hpc_job") is None and s.labels["gpu"] == "0"
             and s.labels["Hostname"] == "node01"]  # fmt: skip
    assert times == sorted(times) and len(times) > 10


def test_a_failing_poll_keeps_the_last_frame_and_is_reported_once() -> None:
    from jobs_helpers import T0, machine

    from gputui.core.errors import SourceError
    from gputui.export.collector import FrameCollector
    from gputui.export.feed import ExportFeed, run_feed

    class Flaky:
        def __init__(self) -> None:
            self.polls = 0

        def poll(self):  # type: ignore[no-untyped-def]
            self.polls += 1
            if self.polls > 1:
                raise SourceError("slurmctld is not answering")
            return machine(T0)

        def close(self) -> None:
            pass

    class FourPolls:
        requested = False

        def __init__(self) -> None:
            self.waits = 0

        def wait(self, seconds: float) -> bool:
            self.waits += 1
            self.requested = self.waits >= 4
            return self.requested

    errors: list[str] = []
    collector = FrameCollector()
    frames = run_feed(ExportFeed(Flaky()), collector, FourPolls(), interval=0.0, on_error=errors.append)
    assert frames == 1 and errors == ["slurmctld is not answering"]
    text = collector.scrape()
    assert text is not None and b"DCGM_FI_DEV_FB_USED" in text
