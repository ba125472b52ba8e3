"""Replays on a recorded timeline: waits, jobs that never start, GPU-hours, worked out by hand."""

from __future__ import annotations

import json

from gputui.cli import main
from gputui.core.simulate.replay import percentile, replay
from gputui.core.simulate.workload import read_nodes, read_pods

H = 3600
HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time"


def _files(tmp_path, rows: list[str]) -> tuple[str, str]:
    pods = tmp_path / "pods.csv"
    pods.write_text(HEADER + "\n" + "\n".join(rows) + "\n")
    nodes = tmp_path / "nodes.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,8000,65536,1,T4\n")
    return str(pods), str(nodes)


ROWS = [
    f"a,1000,1024,1,1000,0,{100 * H}",  # the GPU, 0 h to 100 h
    f"b,1000,1024,1,1000,{10 * H},{30 * H}",  # 20 h of the whole GPU: waits for a, starts at 100 h (the end)
    f"c,1000,1024,1,500,{50 * H},{60 * H}",  # half a GPU: behind b, never starts
]


def test_waits_and_never_started(tmp_path):
    pods, nodes = _files(tmp_path, ROWS)
    r = replay(read_pods(pods, timed=True), read_nodes(nodes), "bestfit")
    assert (r.jobs, r.started, r.never_started) == (3, 2, 1)
    assert r.mean_wait_s == 45 * H and r.p95_wait_s == 90 * H
    assert r.gpu_hours_allocated == 100.0 and r.gpu_hours_idle == 0.0
    assert r.span_s == 100 * H


def test_a_share_fills_in_when_it_fits(tmp_path):
    rows = [f"a,1000,1024,1,500,0,{100 * H}", f"c,1000,1024,1,500,{50 * H},{60 * H}"]
    pods, nodes = _files(tmp_path, rows)
    r = replay(read_pods(pods, timed=True), read_nodes(nodes), "fgd")
    assert (r.started, r.never_started, r.mean_wait_s) == (2, 0, 0.0)
    assert r.gpu_hours_allocated == 55.0  # 0.5 x 100 h + 0.5 x 10 h
    assert r.gpu_hours_idle == 45.0


def test_percentile_nearest_rank():
    assert percentile([], 95) == 0.0
    assert percentile([5.0], 95) == 5.0
    assert percentile([float(x) for x in range(1, 101)], 95) == 95.0


def test_cli_json_and_missing_times(tmp_path, capsys):
    pods, nodes = _files(tmp_path, ROWS)
    assert main(["simulate", "--jobs", pods, "--nodes", nodes, "--policy", "bestfit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"][0]["never_started"] == 1
    untimed = tmp_path / "untimed.csv"
    untimed.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1000,1024,1,500\n")
    assert main(["simulate", "--jobs", str(untimed), "--nodes", nodes]) == 2
    assert "missing column creation_time, deletion_time" in capsys.readouterr().err
