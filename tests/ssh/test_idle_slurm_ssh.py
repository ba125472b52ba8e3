"""The idle radar's Done-when case: a real Slurm 22.05 lab job holds node01's GPUs, node01's fake nvidia-smi (over
the real sshd) reports 0 % on GPU 0 and 60 % on the others, and through `slurm --telemetry ssh` the radar flags
GPU 0 held by that job: `gputui idle --json` lists it, and the dashboard marks it."""

from __future__ import annotations

import json

import pytest
from slurm_fixtures import clean_lab_fixture, slurm_lab_fixture  # noqa: F401  (fixtures register by import)
from slurm_lab import SlurmLab
from ssh_lab import SshLab

from gputui.cli import main

LAB_GPUS = (("node01", 4), ("node02", 4), ("node03", 4), ("node04", 2))


@pytest.fixture
def idle_job(lab: SlurmLab, ssh_lab_env: SshLab, monkeypatch: pytest.MonkeyPatch) -> int:
    """A running job on node01's GPUs 0 and 1 (Slurm's lowest free indices), GPU 0 at 0 % over SSH."""
    for name, count in LAB_GPUS:
        ssh_lab_env.add_host(name, count)
    ssh_lab_env.control("node01", idle=[0], util=60)
    job = lab.sbatch("--gres=gpu:a100:2", wrap="sleep 300")  # from the lab's own work dir
    lab.wait_job_state(job, ("RUNNING",))
    monkeypatch.setenv("SLURM_CONF", str(lab.conf_path))
    return job


def test_gputui_idle_lists_the_slurm_job_whose_gpu_reports_zero(
    idle_job: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["idle", "slurm", "--telemetry", "ssh", "--json", "--window", "3s", "--interval", "0.5"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    idle = [(r["node"], r["gpu"], r["unit"], r["job"], r["held_by"], r["util_max"]) for r in data["idle"]]
    assert idle == [("node01", 0, "gpu", str(idle_job), "slurm", 0)]
    row = data["idle"][0]
    assert row["user"] and row["idle_for_s"] >= 3.0 and row["util_basis"] == "gpu"
    held = {(r["node"], r["gpu"]) for r in data["unknown"]}
    assert ("node01", 1) not in held  # busy at 60 %: neither idle nor unknown


async def test_the_dashboard_marks_it(idle_job: int, ssh_lab_env: SshLab) -> None:
    from gputui.cli.ssh_open import open_slurm_ssh
    from gputui.slurm import SlurmJobs
    from gputui.ui import create_app
    from gputui.ui.widgets.idle_table import IdleTable

    source = open_slurm_ssh(None, "ssh", 0.5)
    jobs = SlurmJobs(source)  # type: ignore[arg-type]
    app = create_app(source, poll_interval=0.5, jobs_service=jobs, themes_path=ssh_lab_env.root / "none",
                     idle_radar=(5, 2.0))  # fmt: skip
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            for _ in range(60):
                await pilot.pause(0.25)
                if "node01/0" in app.state.idle_by_gpu:
                    break
            assert set(app.state.idle_by_gpu) == {"node01/0"}
            (row,) = app.state.radar.last.idle  # type: ignore[union-attr]
            assert (row.holder.job_id, row.holder.origin) == (str(idle_job), "slurm")
            await pilot.press("5")  # the Idle view lists it
            await pilot.pause()
            table = app.screen.query_one(IdleTable)
            assert table.row_order[0] == "node01/0/gpu/"
            assert [c.plain for c in table.get_row("node01/0/gpu/")][2].startswith(str(idle_job))
    finally:
        source.close()


def test_gputui_idle_on_ssh_hosts_names_the_process_user(
    ssh_lab_env: SshLab, capsys: pytest.CaptureFixture[str]
) -> None:
    """No queue on the SSH source: the user of the process holding a host's 0 % GPU is its holder."""
    import os

    ssh_lab_env.add_host("gpu01", 2, procs=[{"gpu": 1, "pid": os.getpid(), "mib": 7000}])
    ssh_lab_env.control("gpu01", idle=[1], util=60)
    assert main(["idle", "ssh:gpu01", "--json", "--window", "2s", "--interval", "0.5"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)["idle"]
    assert [(r["node"], r["gpu"], r["job"], r["held_by"]) for r in rows] == [("gpu01", 1, None, "process")]
    assert rows[0]["user"] and "job queue" not in err
