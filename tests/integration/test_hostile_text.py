"""Terminal and markup injection: every carrier of text from data through every output, checking what is written.

Carriers: GPU names, UUIDs, bus ids, driver and CUDA strings, process commands and users, MIG UUIDs, MPS pipe
directories, node names and features in a recording and in an nvidia-smi CSV log; job names, a job's output
tail; ``#SBATCH`` lines and option typos echoed by error lines. Outputs: ``gputui snapshot``, ``gputui queue``,
``gputui explain``, error lines, and the real dashboard (overview, detail, history, jobs view with a job's
detail, notices) driven by Pilot. Nothing may reach the terminal raw (no ESC, BEL, CR, C1 or bidi control),
and markup in data comes out as typed, never styled and never a link.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from jobs_helpers import local_service, py, wait_for
from list_source import ListSource
from rich.console import Console

from gputui.cli import main
from gputui.cli.job_session import Session
from gputui.core.model import (
    ClusterSnapshot,
    ComputeInstance,
    Event,
    GpuInstance,
    GpuSnapshot,
    MpsClient,
    MpsDaemon,
    NodeSnapshot,
    ProcessInfo,
)
from gputui.core.plain_text import sanitise
from gputui.jobs.records import COMPLETED
from gputui.sources.recording import RecordingWriter

# Window title (OSC 0), clear screen, a hyperlink (OSC 8), a clipboard write (OSC 52), a C1 CSI, a carriage
# return, a bidi override, and Rich markup (a style and a link).
EVIL = (
    "A\x1b]0;pwned\x07B\x1b[2J\x1b]8;;file:///etc/passwd\x1b\\L\x1b]8;;\x1b\\\x1b]52;c;cGF3bmVk\x07"
    "\x9b31mC\rD\u202eE[bold red]x[/][link=file:///etc/passwd]y[/link]"
)
RAW = ("\x1b", "\x07", "\x9b", "\r", "\u202e")
T0 = 1_762_074_000.0


def assert_plain(out: str, carriers: int = 1, whole: bool = True) -> None:
    """No control character written raw; the data shown visibly (escaped), its markup as typed (``whole``: the
    output quotes the whole carrier, not a cut of it)."""
    for ch in RAW:
        assert ch not in out, f"{ch!r} reached the output raw"
    assert out.count("\\x1b") >= carriers, "the escapes are not shown"
    if whole:
        assert out.count("A\\x1b]0;pwned\\x07B") >= carriers
        assert "[bold red]x[/]" in out and "[link=file:///etc/passwd]" in out


def hostile_snapshot(t: float = T0) -> ClusterSnapshot:
    mig = GpuInstance(1, EVIL, compute_instances=(ComputeInstance(0, EVIL, 14, "MIG-" + EVIL),))
    mps = MpsDaemon(True, 10, 11, "/tmp/" + EVIL, clients=(MpsClient(500, 50, 100, EVIL, "mps " + EVIL),))
    gpus = (
        GpuSnapshot(0, uuid="GPU-" + EVIL, name="NAME" + EVIL, pci_bus_id="BUS" + EVIL, performance_state="P0",
                    memory_total_mib=40960, memory_used_mib=1000, utilization_gpu=50,
                    processes=(ProcessInfo(4242, "C", 900, "USER" + EVIL, "CMD" + EVIL),)),
        GpuSnapshot(1, uuid="GPU-1", name="NVIDIA A100", mig_mode_current=True, gpu_instances=(mig,), mps=mps),
        GpuSnapshot(2, uuid="GPU-2", name="NVIDIA A100", memory_total_mib=40960, memory_used_mib=0),  # free
    )  # fmt: skip
    node = NodeSnapshot("node01", gpus, "DRV" + EVIL, "12.4", features=("F" + EVIL,))
    return ClusterSnapshot(t, (node,), "src" + EVIL)


def write_recording(path: Path, frames: int = 3) -> Path:
    with RecordingWriter(path) as w:
        for i in range(frames):
            w.append(hostile_snapshot(T0 + i))
        w.add_event(Event(T0 + 1, "job_started", "EVENT " + EVIL, node="node01", gpus=(0,), job_id="7"))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sanitiser_shows_every_control_visibly() -> None:
    assert sanitise("a\x1b[2Jb\r\n\t\x07\x9b\u202e\udcff") == "a\\x1b[2Jb\\r\\n\\t\\x07\\x9b\\u202e\\udcff"
    assert sanitise("plain · text ü 中 [bold]") == "plain · text ü 中 [bold]"


def test_snapshot_of_a_hostile_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "400")
    rec = write_recording(tmp_path / "evil.gtrec")
    code, out, err = run(capsys, "snapshot", str(rec), "--wide")
    assert code == 0, err
    assert_plain(out + err, carriers=8)
    for label in ("NAME", "BUS", "DRV", "USER", "CMD", "src", "F"):
        assert f"{label}A\\x1b]0;pwned" in out, label
    code, out, err = run(capsys, "snapshot", str(rec))  # the default, narrower tables
    assert code == 0, err
    assert_plain(out + err, carriers=3, whole=False)


def test_snapshot_of_a_hostile_csv_log(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COLUMNS", "400")
    fixture = Path(__file__).parents[2] / "fixtures" / "nvidia-smi" / "netdata-tesla-p100.csv"
    lines = fixture.read_text().splitlines()
    evil = EVIL.replace(",", ";").replace("\r", "")  # a CSV line cannot hold a line break
    lines[1] = lines[1].replace("Tesla P100-PCIE-16GB", "Tesla" + evil, 1)
    log = tmp_path / "evil.csv"
    log.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "snapshot", str(log))
    for ch in RAW:
        assert ch not in out + err
    if code == 0:
        assert "TeslaA\\x1b]0;pwned" in out and "[bold red]x[/]" in out


def test_error_lines_show_typos_and_sbatch_lines_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plan", "--synthetic", "n1:1:A100-40GB", "--", "--gpus=" + EVIL)
    assert code == 2
    assert_plain(err, whole=False)
    code, out, err = run(capsys, "submit", "--source", "demo", "--test-only", "--" + EVIL, "true")
    assert code == 2
    for ch in RAW:
        assert ch not in out + err
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/sh\n#SBATCH --gpus={EVIL}\n#SBATCH --bogus{EVIL}\ntrue\n")
    code, out, err = run(capsys, "plan", "--synthetic", "n1:1:A100-40GB", "--script", str(script))
    assert code == 2
    assert_plain(err, whole=False)


def test_queue_and_explain_show_job_names_and_output_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    service = local_service(tmp_path)
    from jobs_helpers import machine

    snap = machine()
    service.tick(snap)
    rec = service.submit(f"-J {shlex.quote(EVIL)} --cpus-per-task=1", py(f"print({EVIL!r}); print('ok')"))
    service.tick(snap)
    wait_for(lambda: service.tick(snap) and service.get(rec.id).record.state == COMPLETED, timeout=20)

    class Src:
        def close(self) -> None: ...

    session = Session(Src(), service, snap)  # type: ignore[arg-type]
    monkeypatch.setattr("gputui.cli.job_session.open_session", lambda *a, **k: session)
    monkeypatch.setattr(Session, "close", lambda self: None)
    code, out, err = run(capsys, "queue", "--all")
    assert code == 0, err
    assert_plain(out, whole=False)  # the NAME column is 12 wide
    code, out, err = run(capsys, "queue", "--all", "--json")
    assert code == 0 and EVIL in json.loads(out)["jobs"][0]["name"]  # JSON keeps the data, escaped by JSON
    code, out, err = run(capsys, "explain", str(rec.id))
    assert code == 0, err
    assert_plain(out, carriers=2)  # the name and the output tail
    service.close()


def segments_text(app) -> tuple[str, str, list[object]]:  # type: ignore[no-untyped-def]
    """What the screen shows: the text of its segments, the bytes a terminal would be sent, and any link."""
    update = app.screen._compositor.render_full_update()
    console = Console(color_system="truecolor", force_terminal=True, width=app.size.width)
    texts, links = [], []
    for line in update.strips:
        for seg in (seg for strip in line for seg in strip):
            if seg.control is None:
                texts.append(seg.text)
                if seg.style is not None and seg.style.link:
                    links.append(seg.style.link)
    return "".join(texts), update.render_segments(console), links


async def test_the_dashboard_draws_hostile_data_plainly(tmp_path: Path) -> None:
    from textual.widgets import Button

    from gputui.ui import create_app
    from gputui.ui.widgets.jobs_view import JobsView

    service = local_service(tmp_path)
    frames = [hostile_snapshot(T0 + i) for i in range(3)]
    source = ListSource(frames)
    app = create_app(source, jobs_service=service, poll_interval=0.05, themes_path=tmp_path / "none")
    name = EVIL
    async with app.run_test(size=(200, 60)) as pilot:
        for _ in range(200):
            if app.feed.poll_count >= 1:
                break
            await pilot.pause(0.02)
        job = service.submit(f"-J {shlex.quote(name)} --cpus-per-task=1", py(f"print({EVIL!r})"))
        holder = service.submit(f"-J {shlex.quote('HOLD' + EVIL)} --gpus=1", py("import time; time.sleep(60)"))
        for _ in range(200):  # the GPU job runs: the overview's holder column names it
            if app.state.jobs_by_gpu:
                break
            await pilot.pause(0.02)
        assert any("HOLD" in label for label in app.state.jobs_by_gpu.values())
        app.show_job_events([Event(T0, "job_submitted", "EVENT " + EVIL, job_id=str(job.id))])
        from gputui.ui.dialogs.outcome_dialogs import notify_plain

        notify_plain(app, "NOTICE " + EVIL, timeout=600)  # stays while the views are visited
        seen: list[str] = []
        for key in ("1", "2", "3", "4"):
            await pilot.press(key)
            for _ in range(100):
                await pilot.pause(0.02)
                if key != "4":
                    break
                rows = [r for r in app.state.jobs_records if r.id == job.id and r.state == COMPLETED]
                if rows:
                    break
            await pilot.pause(0.1)
            text, written, links = segments_text(app)
            for ch in RAW:
                assert ch not in text, f"view {key}: {ch!r} drawn raw"
            for seq in ("\x1b]0;", "\x1b]52;", "\x1b]8;;file", "\x07", "\x9b", "\r", "\u202e"):
                assert seq not in written, f"view {key}: {seq!r} written to the terminal"
            assert not [link for link in links if "passwd" in str(link)], f"view {key}: markup made a link"
            seen.append(text)
        assert "A\\x1b]0;pwned" in seen[0] and "[bold red]x[/]" in "".join(seen)  # overview: GPU names shown
        assert "HOLDA\\x1b]0;" in seen[0]  # the holder column: the job's name
        notes = [n for n in app._notifications if n.message.startswith("NOTICE")]
        assert notes and not notes[0].markup and notes[0].message == "NOTICE " + sanitise(EVIL)
        jobs = app.screen.query_one(JobsView)
        assert jobs is not None and any(f"{sanitise(name)[:10]}" in s for s in seen[3:])
        del Button
        service.cancel(holder.id)
        for _ in range(200):
            if service.get(holder.id).record.ended:
                break
            await pilot.pause(0.05)
    service.close()
