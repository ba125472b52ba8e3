"""`gputui mig plan` and `gputui mig apply --simulate` on the demo: commands that replay, YAML, errors, the queue."""

from __future__ import annotations

import json

import pytest

from gputui.cli import main
from gputui.core.mig_profiles import model_for
from gputui.core.migplan.parted import parse_counts
from gputui.core.migplan.smi_replay import ModelGpu, replay


@pytest.fixture(autouse=True)
def _state(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(tmp_path / "state"))


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_demo_prints_commands_that_replay_and_a_yaml(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "mig", "plan", "demo")
    assert code == 0
    assert "sample demand" in out and "nvidia-smi mig -i 0 -cgi" in out and "mig-configs:" in out
    assert "slot  0" in out  # the detail view's slot diagram
    code, text, _ = run(capsys, "mig", "plan", "demo", "--json")
    data = json.loads(text)
    assert code == 0 and data["started"] and any(g["commands"] for g in data["gpus"])
    for g in data["gpus"]:
        model = model_for({"node02": "A100-SXM4-40GB", "node03": "H100 80GB HBM3"}[g["node"]])
        gpu = ModelGpu(model)
        for inst in g["now"]:
            from gputui.core.migplan.layouts import slot

            gpu.instances[inst["gi_id"]] = slot(model, inst["profile"], inst["start"])
            gpu.cis[inst["gi_id"]] = {0, 1} if inst["profile"] == "3g.40gb" and g["node"] == "node03" and \
                g["index"] == 0 else {0}  # fmt: skip
        for cmd in g["commands"]:
            replay({g["index"]: gpu}, cmd)
        assert [(s.profile, s.start) for s in gpu.layout()] == [(s["profile"], s["start"]) for s in g["proposed"]]
    counts = parse_counts(data["mig_parted"])
    assert set(counts) == {"gputui-node02", "gputui-node03"}


def test_plan_follows_the_queue(capsys) -> None:  # type: ignore[no-untyped-def]
    # static MIG takes only profiles some instance has (as Slurm's GRES types): node03's 4g.40gb is busy
    assert run(capsys, "submit", "--source", "demo", "--gres=gpu:4g.40gb:1", "--", "true")[0] == 0
    code, text, _ = run(capsys, "mig", "plan", "demo", "--json")
    data = json.loads(text)
    assert code == 0 and data["started"] == ["job 1"]
    (gpu,) = [g for g in data["gpus"] if g["starts"]]
    assert (gpu["node"], gpu["index"]) == ("node03", 0) and gpu["starts"][0]["profile"] == "4g.40gb"
    assert gpu["drain"] == ["pids 353402"]  # carol's 2g.20gb: +4 started for 2 drained


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mig", "plan", "demo", "--want", "9g.99gb:1"], "no MIG GPU here has profile '9g.99gb'"),
        (["mig", "plan", "demo", "--want", "3g.40gb:x"], "expected PROFILE:COUNT"),
        (["mig", "plan", "demo", "--drain-weight", "-1"], "--drain-weight"),
    ],
)
def test_bad_input_is_one_line(capsys, argv, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_no_drain_keeps_running_work(capsys) -> None:  # type: ignore[no-untyped-def]
    code, text, _ = run(capsys, "mig", "plan", "demo", "--json", "--no-drain", "--want", "4g.40gb:1")
    data = json.loads(text)
    assert code == 0 and all(not g["drain"] for g in data["gpus"])


def test_apply_simulate_reslices_the_replay_and_starts_the_waiting_job(capsys) -> None:  # type: ignore[no-untyped-def]
    assert run(capsys, "submit", "--source", "demo", "--gres=gpu:4g.40gb:1", "-t", "1:00:00", "--", "true")[0] == 0
    code, out, _ = run(capsys, "mig", "apply", "--simulate", "demo")
    assert code == 0, out
    assert "node03: nvidia-smi mig -i 0 -cgi 5:0 -C" in out and "ended (simulated): pid 353402" in out
    assert "running: job 1 true on node03:0[4g.40gb GI " in out
    code, text, _ = run(capsys, "queue", "--source", "demo", "--json")
    (job,) = json.loads(text)["jobs"]
    assert job["state"] == "RUNNING" and job["allocation_text"].startswith("node03:0[4g.40gb")
    # the next plan starts from the new layout: node03 GPU 0 now holds the 4g and frank's 3g
    code, text, _ = run(capsys, "mig", "plan", "demo", "--json", "--want", "1g.10gb:1")
    gpu = next(g for g in json.loads(text)["gpus"] if (g["node"], g["index"]) == ("node03", 0))
    assert sorted((s["profile"], s["start"]) for s in gpu["now"]) == [("3g.40gb", 4), ("4g.40gb", 0)]
    code, out, _ = run(capsys, "mig", "apply", "--simulate", "--reset", "demo")
    assert code == 0 and "recorded MIG layouts are back" in out


def test_apply_on_a_live_machine_prints_commands_only(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gputui.cli.mig.apply as mig_apply

    monkeypatch.setattr(mig_apply, "_simulate", lambda *a: (_ for _ in ()).throw(AssertionError("re-sliced")))
    monkeypatch.setattr("gputui.jobs.queue_look.is_simulated", lambda source: False)
    code, out, _ = run(capsys, "mig", "apply", "--simulate", "demo")
    assert code == 0 and "nothing is changed" in out and "nvidia-smi mig -i" in out


def test_a_log_without_placements_is_left_as_it_is(capsys) -> None:  # type: ignore[no-untyped-def]
    from conftest import FIXTURES

    log = FIXTURES / "nvidia-smi" / "exporter-h100-mig-590.48.01.txt"
    code, out, _ = run(capsys, "mig", "plan", str(log), "--want", "1g.10gb:2")
    assert code == 0 and "left as it is" in out and "nvidia-smi mig -i" not in out
    assert "mig-configs: {}" in out and parse_counts(out[out.index("version: v1") :]) == {}


def test_names_from_the_source_reach_the_terminal_as_plain_text() -> None:
    from dataclasses import replace

    from gputui.cli.mig.plan_view import _diagram
    from gputui.core.model import GpuInstance, GpuSnapshot

    gpu = GpuSnapshot(index=0, name="NVIDIA H100 80GB HBM3", mig_mode_current=True)
    gpu = replace(gpu, gpu_instances=(GpuInstance(1, "3g\x1b[2J.40gb", 9, 4, 4),))
    text = _diagram(gpu, 100).plain
    assert "\x1b" not in text and "\\x1b[2J" in text  # shown as an escape, never obeyed
