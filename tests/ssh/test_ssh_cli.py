"""`gputui snapshot ssh:...` and `gputui record ssh:...` headless against the real sshd, and the refusals of bad
host lists (one line, exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ssh_lab import SshLab


def gputui(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gputui", *args], capture_output=True, text=True, timeout=timeout, env=dict(os.environ)
    )


def test_snapshot_json_of_hosts_and_a_fault(ssh_lab_env: SshLab) -> None:
    ssh_lab_env.add_host("gpu01", 2)
    ssh_lab_env.add_host("gpu02", 1)
    ssh_lab_env.add_unreachable("gpu03")
    r = gputui("snapshot", "ssh:gpu[01-03]", "--json")
    assert r.returncode == 0, r.stderr
    nodes = {n["name"]: n for n in json.loads(r.stdout)["nodes"]}
    assert [len(nodes[h]["gpus"]) for h in ("gpu01", "gpu02", "gpu03")] == [2, 1, 0]
    assert nodes["gpu01"]["fault"] is None and nodes["gpu01"]["gpus"][0]["utilization_gpu"] is not None
    assert nodes["gpu03"]["fault"]["kind"] == "unreachable"
    text = gputui("snapshot", "ssh:gpu03")
    assert text.returncode == 0 and "unreachable since" in text.stdout


def test_record_headless_then_replay(ssh_lab_env: SshLab, tmp_path: Path) -> None:
    ssh_lab_env.add_host("gpu01", 2)
    out = tmp_path / "fleet.gtrec"
    r = gputui("record", "ssh:gpu01", "-o", str(out), "--interval", "1", "--duration", "3s", "-q")
    assert r.returncode == 0, r.stderr
    snap = gputui("snapshot", str(out), "--json")
    data = json.loads(snap.stdout)
    assert data["source"].startswith("ssh gpu01") and len(data["nodes"][0]["gpus"]) == 2


def test_config_hosts_list(ssh_lab_env: SshLab) -> None:
    ssh_lab_env.add_host("gpu01", 1)
    conf = Path(os.environ["XDG_CONFIG_HOME"]) / "gputui" / "config.toml"
    conf.write_text(conf.read_text() + '\n[hosts]\nssh = ["gpu01"]\n')
    r = gputui("snapshot", "ssh", "--json")
    assert r.returncode == 0, r.stderr
    assert [n["name"] for n in json.loads(r.stdout)["nodes"]] == ["gpu01"]


def test_bad_host_lists_are_one_line(ssh_lab_env: SshLab) -> None:
    for spec, words in (
        ("ssh:-oProxyCommand=touch${IFS}x", "not a host name"),
        ("ssh:gpu[5-1]", "runs backwards"),
        ("ssh:", "no hosts"),
    ):
        r = gputui("snapshot", spec)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, (spec, r.stderr)
    r = gputui("snapshot", "demo", "--telemetry", "ssh")
    assert r.returncode == 2 and "only with the Slurm source" in r.stderr


def test_no_job_queue_on_the_ssh_source(ssh_lab_env: SshLab) -> None:
    """Jobs would run on this machine with the hosts' GPU numbers: refused in one line, nothing submitted."""
    ssh_lab_env.add_host("gpu01", 1)
    r = gputui("submit", "--source", "ssh:gpu01", "--gpus=1", "--", "true")
    assert r.returncode == 2 and "the SSH source has no job queue" in r.stderr, r.stderr
