"""The SSH source against a real sshd on 127.0.0.1 (tests/support/ssh_lab.py): values that change at 1 Hz, users
from ps, hostile strings sanitised, and nothing left running after close."""

from __future__ import annotations

import os
import time

from ssh_lab import SshLab, lab_settings, ssh_children, wait_nodes

from gputui.core.model import ClusterSnapshot
from gputui.sources.ssh import SshSource


def _ok(snap: ClusterSnapshot) -> bool:
    return all(n.fault is None and n.gpus for n in snap.nodes)


def test_hosts_stream_changing_values_with_users(ssh_lab: SshLab) -> None:
    me = os.getpid()
    hostile = "evil\u202e\x9b[31m[bold red]x[/]"  # bidi override, a C1 CSI, markup: all valid XML
    ssh_lab.add_host("gpu01", 4, procs=[{"gpu": 1, "pid": me}, {"gpu": 2, "pid": 3999999, "name": hostile}])
    ssh_lab.add_host("gpu02", 2)
    src = SshSource(["gpu01", "gpu02"], lab_settings(ssh_lab))
    try:
        first = wait_nodes(src, _ok, "both hosts answering")
        assert [len(n.gpus) for n in first.nodes] == [4, 2]
        g = first.node("gpu01").gpus
        assert g[0].name == "Tesla T4" and g[0].uuid and g[0].uuid != g[1].uuid
        assert first.node("gpu01").driver_version == "515.105.01"
        before = [x.utilization_gpu for x in g]
        later = wait_nodes(
            src, lambda s: _ok(s) and [x.utilization_gpu for x in s.node("gpu01").gpus] != before, "a new poll", 10
        )
        gpu1 = later.node("gpu01").gpus[1]
        assert all(x.utilization_gpu is not None and x.memory_used_mib is not None for x in later.node("gpu01").gpus)
        procs = [p for p in gpu1.processes if p.pid == me]
        assert procs and procs[0].user  # from the remote ps
        # a pid ps does not know keeps the XML's name, sanitised: control and bidi characters shown as escapes
        (ghost,) = later.node("gpu01").gpus[2].processes
        assert ghost.user is None and ghost.command == "evil\\u202e\\x9b[31m[bold red]x[/]"
    finally:
        src.close()
    assert ssh_children() == []


def test_idle_gpus_report_zero(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("gpu01", 3)
    ssh_lab.control("gpu01", idle=[0, 2])
    src = SshSource(["gpu01"], lab_settings(ssh_lab))
    try:
        snap = wait_nodes(src, _ok, "the host")
        utils = [g.utilization_gpu for g in snap.node("gpu01").gpus]
        assert utils[0] == 0 and utils[2] == 0
        ssh_lab.control("gpu01", util=40)
        snap = wait_nodes(src, lambda s: s.node("gpu01").gpus[0].utilization_gpu == 40, "the idle GPU busy again", 10)
    finally:
        src.close()


def test_poll_never_waits_for_a_host(ssh_lab: SshLab) -> None:
    """A host that is slow to answer (or never does) does not make poll() wait: it returns at once."""
    ssh_lab.add_host("gpu01", 2)
    ssh_lab.add_host("slow", 2)
    ssh_lab.control("slow", delay=30)
    src = SshSource(["gpu01", "slow"], lab_settings(ssh_lab))
    try:
        wait_nodes(src, lambda s: s.node("gpu01").fault is None and s.node("gpu01").gpus, "the quick host")
        t = time.perf_counter()
        for _ in range(20):
            snap = src.poll()
        assert (time.perf_counter() - t) / 20 < 0.01
        slow = snap.node("slow")
        assert slow.fault is not None and slow.fault.kind == "connecting"
    finally:
        src.close()


def test_a_login_banner_before_the_output_is_skipped(ssh_lab: SshLab) -> None:
    """A shell that prints something first (a .bashrc banner): what comes before gputui's start marker is dropped.
    Run through a stand-in for ssh that prints the banner, then runs the remote command as the fake host."""
    ssh_lab.add_host("chatty", 2)
    fake_ssh = ssh_lab.root / "chatty-ssh"
    fake_ssh.write_text(
        "#!/bin/sh\n"
        'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done; shift\n'
        "echo 'Welcome to chatty! <nvidia_smi_log> 0, 1, 2'\n"
        f'PATH={ssh_lab.root / "bin"}:$PATH GPUTUI_FAKE_DIR={ssh_lab.root} GPUTUI_FAKE_HOST="$1" exec sh -c "$2"\n'
    )
    fake_ssh.chmod(0o755)
    src = SshSource(["chatty"], lab_settings(ssh_lab, program=str(fake_ssh), control_dir=None))
    try:
        snap = wait_nodes(src, _ok, "the chatty host")
        assert len(snap.node("chatty").gpus) == 2
    finally:
        src.close()


def test_a_mig_host_keeps_its_layout(ssh_lab: SshLab) -> None:
    """The detail document carries the MIG layout (a real A100 capture in MIG mode); the values keep it."""
    ssh_lab.add_host("mig01", 2, capture="telegraf-a100-sxm4-v12.xml")
    src = SshSource(["mig01"], lab_settings(ssh_lab))
    try:
        snap = wait_nodes(src, _ok, "the MIG host")
        gpus = snap.node("mig01").gpus
        assert all(g.mig_mode_current and len(g.gpu_instances) >= 1 for g in gpus)
        assert gpus[0].gpu_instances[0].profile is not None
    finally:
        src.close()
