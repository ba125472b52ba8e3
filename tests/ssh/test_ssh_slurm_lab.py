"""`--telemetry ssh` against a real Slurm 22.05 lab and the real sshd: a running job's GPUs (Slurm's IDX) show the
host's live values, one of them reporting 0 % (the case the idle radar looks for)."""

from __future__ import annotations

from slurm_fixtures import clean_lab_fixture, slurm_lab_fixture  # noqa: F401  (fixtures register by import)
from slurm_lab import SlurmLab
from ssh_lab import SshLab, lab_settings, wait_nodes

from gputui.slurm import SlurmSource
from gputui.sources.ssh import SshSource


def test_a_running_jobs_gpus_show_live_values(lab: SlurmLab, ssh_lab: SshLab) -> None:
    for name, count in (("node01", 4), ("node02", 4), ("node03", 4), ("node04", 2)):
        ssh_lab.add_host(name, count)
    ssh_lab.control("node01", idle=[1])
    job = lab.sbatch("--gres=gpu:a100:2", wrap="sleep 300")  # from the lab's own work dir
    lab.wait_job_state(job, ("RUNNING",))
    settings = lab_settings(ssh_lab)
    src = SlurmSource(lab.env, nvml=None, telemetry=lambda hosts: SshSource(hosts, settings))
    try:
        snap = wait_nodes(src, lambda s: all(g.utilization_gpu is not None for g in s.node("node01").gpus),
                          "node01's GPUs live")  # fmt: skip
        assert src.last is not None
        held = {(node, i) for j in src.last.jobs if j.id == job for node, items in j.gres_alloc for it in items
                for i in it.indices or ()}  # fmt: skip
        assert held == {("node01", 0), ("node01", 1)}
        gpus = snap.node("node01").gpus
        assert gpus[1].utilization_gpu == 0 and gpus[0].utilization_gpu is not None
        assert gpus[0].uuid is not None and snap.node("node01").state is not None
    finally:
        src.close()
