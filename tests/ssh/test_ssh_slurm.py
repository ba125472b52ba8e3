"""`--telemetry ssh`: the Slurm source (the captured 22.05 lab outputs) with every node's GPUs read over SSH from the
real sshd; Slurm's nodes, states and GPU indices stay, the values are the hosts'."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from ssh_lab import SshLab, lab_settings, wait_nodes

from gputui.core.model import ClusterSnapshot
from gputui.slurm import SlurmSource
from gputui.slurm.fake import FakeSlurm, captured_answers
from gputui.sources.ssh import SshSource

GPUS = {"node01": 4, "node02": 4, "node03": 4, "node04": 2}


def _live(snap: ClusterSnapshot, name: str) -> bool:
    n = snap.node(name)
    return n.fault is None and all(g.utilization_gpu is not None for g in n.gpus if not g.mig_mode_current)


def test_slurm_nodes_with_gpu_values_over_ssh(ssh_lab: SshLab, tmp_path: Path) -> None:
    own = ssh_lab.start_server()
    for name, count in GPUS.items():
        ssh_lab.add_host(name, count, server=own if name == "node02" else None)
    ssh_lab.control("node01", idle=[1])
    settings = lab_settings(ssh_lab)
    opened: list[SshSource] = []

    def telemetry(hosts: list[str]) -> SshSource:
        opened.append(SshSource(hosts, settings))
        return opened[-1]

    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=testlab\n")
    src = SlurmSource({}, conf_path=conf, runner=FakeSlurm(captured_answers(FIXTURES / "slurm")), nvml=None,
                      telemetry=telemetry)  # fmt: skip
    try:
        first = src.poll()
        assert [n.name for n in first.nodes] == list(GPUS) and opened[0].hosts == list(GPUS)
        snap = wait_nodes(src, lambda s: all(_live(s, n) for n in ("node01", "node02", "node04")), "every node live")
        n1 = snap.node("node01")
        assert n1.state == first.node("node01").state  # Slurm's state stays
        assert [g.index for g in n1.gpus] == [0, 1, 2, 3] and n1.gpus[1].utilization_gpu == 0
        assert n1.gpus[0].uuid is not None and n1.driver_version == "515.105.01"
        # node03's GRES are MIG-typed: Slurm's entries stay (its IDX counts MIG devices, not the host's GPUs)
        assert all(g.mig_mode_current and g.utilization_gpu is None for g in snap.node("node03").gpus)
        assert "GPU values over SSH" in src.description
        ssh_lab.kill(own)
        down = wait_nodes(src, lambda s: s.node("node02").fault is not None
                          and s.node("node02").fault.kind == "unreachable", "node02's telemetry down")  # fmt: skip
        n2 = down.node("node02")
        assert n2.state == first.node("node02").state and [g.index for g in n2.gpus] == [0, 1, 2, 3]
        assert _live(down, "node01")
    finally:
        src.close()
    assert opened[0]._closed
