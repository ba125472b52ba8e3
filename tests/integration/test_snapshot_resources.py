"""`gputui snapshot` shows each node's CPUs, memory and features under its header, and its JSON carries them;
strings from the data are sanitised and shown as plain text."""

from __future__ import annotations

import io
import json

import pytest
from conftest import FIXTURES
from test_cli import run

from gputui.core.model import ClusterSnapshot, NodeResources, NodeSnapshot
from gputui.core.plain_text import sanitise
from gputui.render.smi_tables import print_snapshot, resources_line, size
from gputui.render.terminal import Terminal
from gputui.resources import demo_recording
from gputui.sources.nvsmi import load_nvsmi_log
from gputui.sources.recording import RecordingReader

GIB = 1024


@pytest.mark.parametrize(
    ("res", "features", "line"),
    [
        (NodeResources(64, 512 * GIB, 12, 200 * GIB, 310 * GIB), (),
         "CPUs 64 (12 allocated) · memory 512 GiB (200 GiB allocated, 310 GiB in use)"),
        (NodeResources(64, 512 * GIB, memory_used_mib=73672), (), "CPUs 64 · memory 512 GiB (71.9 GiB in use)"),
        (NodeResources(16, 64000, 2, 0), ("a100", "ib"),
         "CPUs 16 (2 allocated) · memory 62.5 GiB (0 GiB allocated) · features a100, ib"),
        (NodeResources(cpus=8), (), "CPUs 8 · memory N/A"),
        (NodeResources(memory_mib=2048 * GIB), (), "CPUs N/A · memory 2 TiB"),
        (NodeResources(), (), "CPUs N/A · memory N/A"),
        (None, ("v100m32",), "features v100m32"),
        (None, (), None),  # the source has none: no line at all
    ],
)  # fmt: skip
def test_resources_line(res, features, line):
    got = resources_line(res, features)
    assert (got.plain if got is not None else None) == line


def test_sizes():
    assert [size(m) for m in (0, 500, 1024, 64000, 102400, 1536 * GIB, 1048576, 1000 * GIB)] == [
        "0 GiB", "500 MiB", "1 GiB", "62.5 GiB", "100 GiB", "1.5 TiB", "1 TiB", "1000 GiB",
    ]  # fmt: skip


def test_na_is_dim_not_zero():
    line = resources_line(NodeResources(cpus=None, memory_mib=None), ())
    assert line is not None and "0" not in line.plain
    assert [style for text, style in line.pieces if text == "N/A"] == ["dim", "dim"]


def test_demo_snapshot_shows_each_nodes_cpus_and_memory(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "snapshot", "demo", "--at", "+100s")
    assert code == 0
    frame = RecordingReader(demo_recording()).frame(100)
    lines = out.splitlines()
    for node in frame.nodes:
        head = next(i for i, ln in enumerate(lines) if ln.startswith(f"{node.name}   Driver Version"))
        assert lines[head + 1] == resources_line(node.resources).plain
    assert "CPUs 96 · memory 1 TiB (" in out  # node03, two H100s


def test_json_carries_resources_and_features(capsys):
    code, out, _ = run(capsys, "snapshot", "demo", "--json", "--at", "+100s")
    assert code == 0
    nodes = {n["name"]: n for n in json.loads(out)["nodes"]}
    res = nodes["node03"]["resources"]
    assert (res["cpus"], res["memory_mib"], res["cpus_alloc"], res["memory_alloc_mib"]) == (96, GIB * GIB, None, None)
    assert isinstance(res["memory_used_mib"], int) and nodes["node03"]["features"] == []


def test_nvidia_smi_logs_have_no_node_resources(capsys, monkeypatch):
    xml = next((FIXTURES / "nvidia-smi").glob("*a100*v12*.xml"))
    assert all(n.resources is None and n.features == () for f in load_nvsmi_log(xml).frames for n in f.nodes)
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "snapshot", str(xml))
    assert code == 0 and "CPUs" not in out and "memory N/A" not in out


def test_hostile_strings_are_sanitised_and_never_markup():
    evil = NodeSnapshot(
        "n\x1b[2Jx", resources=NodeResources(cpus=4), features=("[bold red]big[/]", "a\x1b]0;pwned\x07b", "\u202eabc")
    )
    buf = io.StringIO()
    print_snapshot(buf, ClusterSnapshot(0.0, (evil,), "src\r\n"), terminal=Terminal(200, is_terminal=True, colour=True))
    out = buf.getvalue()
    assert "\x1b[1;36mn\\x1b[2Jx\x1b[0m   Driver Version" in out  # the only escapes: the renderer's own colours
    out = out.replace("\x1b[1;36m", "").replace("\x1b[2m", "").replace("\x1b[1m", "").replace("\x1b[3m", "")
    out = out.replace("\x1b[0m", "")
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "\r" not in out
    assert "features [bold red]big[/], a\\x1b]0;pwned\\x07b, \\u202eabc" in out  # markup shown as typed
    assert "n\\x1b[2Jx   Driver Version: N/A" in out
    assert sanitise("plain · text ü 中") == "plain · text ü 中"
