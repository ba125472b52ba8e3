"""Faults are rows: each against the real sshd, while another host keeps updating, and each retried."""

from __future__ import annotations

from ssh_lab import SshLab, lab_settings, ssh_children, wait_nodes

from gputui.core.model import ClusterSnapshot
from gputui.core.node_faults import fault_line
from gputui.sources.ssh import SshSource


def _kind(snap: ClusterSnapshot, host: str) -> str | None:
    f = snap.node(host).fault
    return None if f is None else f.kind


def _updating(src: SshSource, host: str = "good") -> None:
    """``host`` shows values that change while the other host is down."""
    first = wait_nodes(src, lambda s: _kind(s, host) is None and bool(s.node(host).gpus), f"{host} answering")
    before = [g.memory_used_mib for g in first.node(host).gpus]
    wait_nodes(src, lambda s: [g.memory_used_mib for g in s.node(host).gpus] != before, f"{host} updating", 10)


def test_stream_stopped_mid_way_is_a_row_and_comes_back(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("good", 2)
    ssh_lab.add_host("flaky", 2)
    src = SshSource(["good", "flaky"], lab_settings(ssh_lab))
    try:
        wait_nodes(src, lambda s: _kind(s, "flaky") is None and bool(s.node("flaky").gpus), "flaky answering")
        ssh_lab.control("flaky", stop_after=0)  # the running streams stop at their next poll
        snap = wait_nodes(src, lambda s: _kind(s, "flaky") == "stopped", "the stopped stream")
        node = snap.node("flaky")
        assert node.fault is not None and "stopped by the test" in node.fault.reason
        assert len(node.gpus) == 2 and all(g.utilization_gpu is None for g in node.gpus)  # identity, no values
        assert "stream stopped since" in fault_line(node.fault)
        _updating(src)
        ssh_lab.control("flaky")  # healthy again: the retry picks it up
        wait_nodes(src, lambda s: _kind(s, "flaky") is None, "flaky back after a retry")
    finally:
        src.close()
    assert ssh_children() == []


def test_killed_sshd_is_unreachable_while_others_go_on(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("good", 2)
    own = ssh_lab.start_server()
    ssh_lab.add_host("doomed", 2, server=own)
    src = SshSource(["good", "doomed"], lab_settings(ssh_lab))
    try:
        wait_nodes(src, lambda s: _kind(s, "doomed") is None and bool(s.node("doomed").gpus), "doomed answering")
        ssh_lab.kill(own)
        snap = wait_nodes(
            src,
            lambda s: _kind(s, "doomed") == "unreachable" and "refused" in (s.node("doomed").fault.reason or ""),
            "the dead host refusing connections",
        )
        assert "unreachable since" in fault_line(snap.node("doomed").fault)  # type: ignore[arg-type]
        _updating(src)
    finally:
        src.close()


def test_wrong_key_is_auth_refused(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("good", 1)
    ssh_lab.add_host("locked", 1, key="wrong")
    src = SshSource(["good", "locked"], lab_settings(ssh_lab))
    try:
        snap = wait_nodes(src, lambda s: _kind(s, "locked") == "auth", "auth refused")
        assert "Permission denied" in snap.node("locked").fault.reason  # type: ignore[union-attr]
        _updating(src)
    finally:
        src.close()


def test_host_without_nvidia_smi(ssh_lab: SshLab) -> None:
    bare = ssh_lab.start_server(nvidia_smi=False)
    ssh_lab.add_host("good", 1)
    ssh_lab.add_host("cpu01", 1, server=bare)
    ssh_lab.add_unreachable("ghost")
    src = SshSource(["good", "cpu01", "ghost"], lab_settings(ssh_lab))
    try:
        snap = wait_nodes(src, lambda s: _kind(s, "cpu01") == "no-nvidia-smi" and _kind(s, "ghost") == "unreachable",
                          "no nvidia-smi, and nothing listening")  # fmt: skip
        assert snap.node("cpu01").gpus == ()
        assert "Connection refused" in snap.node("ghost").fault.reason  # type: ignore[union-attr]
        _updating(src)
    finally:
        src.close()


def test_garbage_is_a_row(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("good", 2)
    ssh_lab.add_host("noisy", 2)
    src = SshSource(["good", "noisy"], lab_settings(ssh_lab))
    try:
        wait_nodes(src, lambda s: _kind(s, "noisy") is None and bool(s.node("noisy").gpus), "noisy answering")
        ssh_lab.control("noisy", garbage=True)
        snap = wait_nodes(src, lambda s: _kind(s, "noisy") == "garbage", "garbage noticed")
        reason = snap.node("noisy").fault.reason  # type: ignore[union-attr]
        assert "\x1b" not in reason and "\x00" not in reason
        _updating(src)
    finally:
        src.close()


def test_slow_host_stalls_without_delaying_others(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("good", 2)
    ssh_lab.add_host("slow", 2)
    src = SshSource(["good", "slow"], lab_settings(ssh_lab, stall_after=1.5))
    try:
        wait_nodes(src, lambda s: _kind(s, "slow") is None and bool(s.node("slow").gpus), "slow answering")
        ssh_lab.control("slow", delay=4)
        snap = wait_nodes(src, lambda s: _kind(s, "slow") == "stalled", "the stall", 15)
        assert "no values for over 1.5 s" in snap.node("slow").fault.reason  # type: ignore[union-attr]
        _updating(src)
        ssh_lab.control("slow")
        wait_nodes(src, lambda s: _kind(s, "slow") is None, "the slow host back", 20)
    finally:
        src.close()
