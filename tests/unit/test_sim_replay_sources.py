"""Replays of a gputui job store and of a recording's job events (`gputui simulate --jobs SOURCE`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gputui.cli import main
from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant
from gputui.core.scheduler.parse.options import parse_options
from gputui.jobs.records import JobRecord
from gputui.jobs.schema import DB_NAME
from gputui.jobs.store import JobStore
from gputui.resources import bundled_path

H = 3600
DEMO = str(bundled_path("fixtures/demo/demo-cluster.gtrec"))


def _job(options: str, state: str, submit: float, start: float | None = None, end: float | None = None,
         grant: NodeGrant | None = None) -> JobRecord:  # fmt: skip
    alloc = None if grant is None else Allocation((grant,))
    req = parse_options(options)
    return JobRecord(0, "local", "ann", 1000, options, req, "sim", state, submit, allocation=alloc, start_time=start,
                     end_time=end)  # fmt: skip


def _store(tmp_path) -> str:
    path = tmp_path / "state" / DB_NAME
    path.parent.mkdir(mode=0o700)
    store = JobStore(path)
    one = NodeGrant("n1", (GpuGrant(0),), cpu_milli=1000)
    mig = NodeGrant("n1", (GpuGrant(0, mig=MigGrant(1, "1g.5gb", 0, 1, ())),))
    jobs = [
        _job("--gpus=1 -c 1", "COMPLETED", 0, 0, 100 * H, one),  # holds the GPU 0 h to 100 h
        _job("--gpus=1 -c 1", "COMPLETED", 10 * H, 110 * H, 130 * H, one),  # ran 20 h: waits for the first
        _job("--gres=gpu:1g.5gb:1", "COMPLETED", 20 * H, 20 * H, 30 * H, mig),  # MIG: left out
        _job("--gpus=1", "CANCELLED", 30 * H, None, 40 * H),  # cancelled while waiting: left out
        _job("--gpus=1 -c 1", "PENDING", 50 * H),  # still waiting: runs to the end once it starts
    ]
    with store.write() as con:
        for rec in jobs:
            store.insert_job(con, rec)
    store.close()
    return str(path)


def test_job_store_replay(tmp_path, capsys):
    db = _store(tmp_path)
    before = Path(db).read_bytes()
    argv = ["simulate", "--jobs", db, "--synthetic", "n1:1:T4", "--policy", "bestfit", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "job store"
    assert out["skipped"] == {"MIG instances": 1, "cancelled before they started": 1}
    r = out["results"][0]
    assert (r["jobs"], r["started"], r["never_started"]) == (3, 3, 0)
    # waits: 0, 90 h (from 10 h to 100 h), 70 h (from 50 h to 120 h, behind the second)
    assert r["mean_wait_s"] == round((90 + 70) * H / 3, 1) and r["p95_wait_s"] == 90 * H
    assert r["gpu_hours_allocated"] == 130.0 and r["gpu_hours_idle"] == 0.0 and r["span_s"] == 130 * H
    assert 0 < len(r["timeline"]) <= 200 and r["timeline"][0] == [0, 100.0, 0.0]
    assert Path(db).read_bytes() == before  # read-only


def test_recording_replay_on_its_own_nodes(capsys):
    assert main(["simulate", "--jobs", DEMO, "--policy", "fgd", "--policy", "bestfit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == "recording" and out["cluster"] == "the recording's nodes"
    assert out["skipped"]["MIG instances"] == 6
    for r in out["results"]:
        assert r["jobs"] == 14 and r["started"] + r["never_started"] == 14
        assert r["timeline"]


def test_replay_table_and_chart(capsys):
    assert main(["simulate", "--jobs", DEMO, "--policy", "fgd-cpu", "--chart"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "replay of 14 jobs (recording)" in out and "6 MIG instances" in out
    assert "GPU fragmented (%) over the replay" in out


def test_bad_sources_are_one_line(tmp_path, capsys):
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    assert main(["simulate", "--jobs", str(other), "--synthetic", "n1:1:T4"]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a gputui job store" in err and "\n" not in err
    assert main(["simulate", "--jobs", _store(tmp_path)]) == 2
    assert "--nodes or --synthetic" in capsys.readouterr().err
    assert main(["simulate", "--jobs", DEMO, "--synthetic", "n1:x:T4"]) == 2
    assert "--synthetic" in capsys.readouterr().err
    assert main(["simulate", "--jobs", str(tmp_path / "missing.db"), "--synthetic", "n1:1:T4"]) == 2
    assert "cannot read" in capsys.readouterr().err
