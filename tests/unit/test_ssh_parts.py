"""The SSH source's pure parts: host lists, ssh's argv, fault classification, value rows, the fault line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gputui.core.errors import SourceError
from gputui.core.model import GpuSnapshot, NodeFault, NodeSnapshot
from gputui.core.node_faults import fault_line
from gputui.sources.ssh.faults import classify
from gputui.sources.ssh.hosts import expand_hosts
from gputui.sources.ssh.remote import VALUE_FIELDS, ValueRows, detail_command, values_command, with_values
from gputui.sources.ssh.settings import SshSettings


@pytest.mark.parametrize(
    ("spec", "hosts"),
    [
        ("gpu01,gpu02", ["gpu01", "gpu02"]),
        ("gpu[01-03]", ["gpu01", "gpu02", "gpu03"]),
        ("node[1,3-4]x,dgx", ["node1x", "node3x", "node4x", "dgx"]),
        ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
        ("a, b ,a", ["a", "b"]),
        ("alice@gpu01", ["alice@gpu01"]),
    ],
)
def test_host_lists(spec: str, hosts: list[str]) -> None:
    assert expand_hosts(spec) == hosts


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("-oProxyCommand=sh", "not a host name"),
        ("gpu01 -v", "not a host name"),
        ("g;rm", "not a host name"),
        ("g[3-1]", "runs backwards"),
        ("g[a-b]", "expected numbers"),
        ("g[0-99999]", "more than 4096 hosts"),
        ("g[1234567]", "numbers too long"),
    ],
)
def test_bad_host_lists(spec: str, words: str) -> None:
    with pytest.raises(SourceError, match=words):
        expand_hosts(spec)


@given(st.text(max_size=30))
def test_any_text_gives_safe_names_or_one_error(spec: str) -> None:
    try:
        hosts = expand_hosts(spec)
    except SourceError as e:
        assert "\n" not in str(e)
        return
    assert all(h and not h.startswith("-") and h.isprintable() and " " not in h for h in hosts)


def test_argv_never_prompts_and_shares_per_alias() -> None:
    s = SshSettings(config="/x/ssh_config", control_dir=Path("/run/user/1000/gputui/ssh"))
    argv = s.session_argv("gpu01", "cmd", master=True)
    assert argv[:3] == ["ssh", "-F", "/x/ssh_config"] and argv[-3:] == ["--", "gpu01", "cmd"]
    joined = " ".join(argv)
    for opt in (
        "BatchMode=yes",
        "ConnectTimeout=10",
        "ServerAliveInterval=5",
        "ControlMaster=yes",
        "ControlPersist=no",
    ):
        assert opt in joined
    assert "ControlMaster=no" in " ".join(s.session_argv("gpu01", "cmd"))
    assert s.control_path("gpu01") != s.control_path("gpu02")
    assert SshSettings(control_dir=None).control_path("gpu01") is None
    deep = SshSettings(control_dir=Path("/" + "d" * 90))
    assert deep.control_path("gpu01") is None and "ControlMaster" not in " ".join(deep.session_argv("h", "c"))


def test_remote_commands_are_posix_sh() -> None:
    assert values_command(1).startswith("exec sh -c ") and "-l 1" in values_command(1)
    assert "-lms 500" in values_command(0.5)
    assert "nvidia-smi -q -x" in detail_command(15) and "sleep 15" in detail_command(15)


@pytest.mark.parametrize(
    ("status", "stderr", "kind"),
    [
        (255, "root@127.0.0.1: Permission denied (publickey).\n", "auth"),
        (255, "ssh: connect to host 10.0.0.1 port 22: Connection timed out\n", "unreachable"),
        (255, "ssh: Could not resolve hostname gpu99: Name or service not known\n", "unreachable"),
        (255, "Host key verification failed.\n", "host-key"),
        (127, "gputui: nvidia-smi not found on the remote PATH\n", "no-nvidia-smi"),
        (127, "", "no-nvidia-smi"),
        (1, "nvidia-smi: Failed to initialize NVML: Driver/library version mismatch\n", "stopped"),
        (255, "", "unreachable"),
        (None, "", "stopped"),
    ],
)
def test_classify(status: int | None, stderr: str, kind: str) -> None:
    got, reason = classify(status, stderr)
    assert got == kind and "\n" not in reason
    if kind == "stopped" and stderr:
        assert "Driver/library version mismatch" in reason


def test_classify_sanitises_the_reason() -> None:
    _, reason = classify(1, "bad \x1b]0;title\x07 thing\n")
    assert "\x1b" not in reason and "\\x1b" in reason


def _row(i: int, util: int, uuid: str | None = None) -> str:
    cells = [
        str(i),
        uuid or f"GPU-{i}",
        str(util),
        "1",
        "100",
        "1000",
        "40",
        "50.5",
        "70",
        "[N/A]",
        "1",
        "2",
        "3",
        "P0",
    ]
    assert len(cells) == len(VALUE_FIELDS)
    return ", ".join(cells)


def test_value_rows_complete_a_poll_without_waiting_for_the_next() -> None:
    rows = ValueRows("h")
    rows.expected = 2
    assert rows.add(_row(0, 10)) is None
    gpus = rows.add(_row(1, 20))
    assert gpus is not None and [g.utilization_gpu for g in gpus] == [10, 20] and gpus[0].fan_percent is None
    rows.expected = 3  # the detail said 3, the host sends 2: a repeated index ends the poll
    assert rows.add(_row(0, 11)) is None and rows.add(_row(1, 21)) is None
    gpus = rows.add(_row(0, 12))
    assert gpus is not None and [g.utilization_gpu for g in gpus] == [11, 21]


@pytest.mark.parametrize("line", ["garbage", "<?xml version='1.0'?>", "x, y", _row(0, 5) + ", extra"])
def test_value_rows_refuse_what_is_no_row(line: str) -> None:
    with pytest.raises(SourceError):
        ValueRows("h").add(line)


def test_values_matched_by_index_and_checked_by_uuid() -> None:
    node = NodeSnapshot("h", (GpuSnapshot(0, uuid="GPU-0", name="T4"), GpuSnapshot(1, uuid="GPU-1", name="T4")))
    live = [GpuSnapshot(0, uuid="GPU-0", utilization_gpu=7), GpuSnapshot(1, uuid="GPU-X", utilization_gpu=9)]
    out = with_values(node, live)
    assert out.gpus[0].utilization_gpu == 7 and out.gpus[0].name == "T4"
    assert out.gpus[1].utilization_gpu is None  # a different GPU under that index: not taken


def test_fault_line() -> None:
    f = NodeFault("unreachable", "ssh: connect to host x port 22: Connection refused", 1796122497.0)
    assert fault_line(f) == "unreachable since 10:54:57 UTC: ssh: connect to host x port 22: Connection refused"
    assert fault_line(NodeFault("auth", "", 0.0)) == "auth refused since 00:00:00 UTC"


@given(st.binary(max_size=400))
def test_any_bytes_from_a_host_are_one_error_or_a_node(data: bytes) -> None:
    from gputui.sources.ssh.remote import parse_detail

    try:
        node = parse_detail("h", b'<?xml version="1.0" ?>\n<nvidia_smi_log>' + data, [data.decode("latin-1")])
    except SourceError as e:
        assert "\n" not in str(e)
        return
    assert node.name == "h"


@given(st.lists(st.text(max_size=120), max_size=6))
def test_any_lines_are_rows_or_one_error(lines: list[str]) -> None:
    rows = ValueRows("h")
    rows.expected = 2
    for line in lines:
        try:
            rows.add(line)
        except SourceError:
            return
