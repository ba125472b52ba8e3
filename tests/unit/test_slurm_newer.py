"""Later Slurm JSON shapes (data_parser v0.0.40+, Slurm 23.11 and on). NOT captured from a real cluster: the
samples below are hand-made from public descriptions of those releases' ``sinfo --json`` / ``squeue --json``
(numbers as {"set", "infinite", "number"}, states as lists, ``sinfo`` entries grouping nodes, exit codes as
objects). They check that such output is read; whether real 23.x/24.x output matches them is unverified."""

from __future__ import annotations

import json
from pathlib import Path

from gputui.slurm import SlurmJobs, SlurmSource
from gputui.slurm.fake import FakeSlurm


def num(n: int | None, infinite: bool = False) -> dict:
    return {"set": n is not None, "infinite": infinite, "number": n or 0}


# hand-made: two partitions list node01, so it appears twice; node[02-03] are grouped in one entry
SINFO = {
    "meta": {}, "errors": [], "warnings": [],
    "sinfo": [
        {"partition": {"name": "gpu"}, "node": {"state": ["MIXED"]},
         "nodes": {"nodes": ["node01"], "hostnames": ["host01"], "addresses": ["10.0.0.1"]},
         "gres": {"total": "gpu:h100:4(S:0-1)", "used": "gpu:h100:2(IDX:0-1)"}, "reason": ""},
        {"partition": {"name": "debug"}, "node": {"state": ["MIXED"]},
         "nodes": {"nodes": ["node01"], "hostnames": ["host01"], "addresses": ["10.0.0.1"]},
         "gres": {"total": "gpu:h100:4(S:0-1)", "used": "gpu:h100:2(IDX:0-1)"}, "reason": ""},
        {"partition": {"name": "gpu"}, "node": {"state": ["IDLE", "DRAIN"]},
         "nodes": {"nodes": ["node02", "node03"], "hostnames": ["host02", "host03"], "addresses": [],},
         "gres": {"total": "gpu:h100:4,shard:16", "used": "gpu:h100:0(IDX:N/A),shard:0"},
         "reason": {"description": "maintenance", "set_by": "root"}},
    ],
}  # fmt: skip
SQUEUE = {
    "meta": {}, "errors": [], "warnings": [],
    "jobs": [
        {"job_id": 501, "name": "train", "user_id": 1000, "user_name": "alice", "job_state": ["RUNNING"],
         "state_reason": "None", "nodes": "node01", "gres_detail": ["gpu:h100:2(IDX:0-1)"],
         "tres_per_node": "gres/gpu:h100=2", "node_count": num(1), "submit_time": num(1700000000),
         "start_time": num(1700000010), "end_time": num(1700003610), "time_limit": num(60),
         "priority": num(4294901000), "nice": 0, "exit_code": {"status": ["RUNNING"], "return_code": num(0)},
         "current_working_directory": "/home/alice", "standard_output": "/home/alice/train-%j.out",
         "shared": [], "exclusive": ["FALSE"], "batch_flag": True, "cluster": "big"},
        {"job_id": 502, "name": "wait", "user_id": 1000, "user_name": "alice", "job_state": ["PENDING"],
         "state_reason": "Resources", "nodes": "", "gres_detail": [], "tres_per_node": "gres/gpu:h100=4",
         "node_count": num(2), "submit_time": num(1700000020), "start_time": num(0), "end_time": num(0),
         "time_limit": num(None, infinite=True), "priority": num(4294900999), "nice": 0,
         "exit_code": {"status": ["PENDING"], "return_code": num(0)}, "batch_flag": True},
    ],
}  # fmt: skip


def open_newer(tmp_path: Path) -> tuple[SlurmSource, SlurmJobs]:
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=big\n")
    fake = FakeSlurm({
        ("sinfo", "--version"): "slurm 24.11.1\n",
        ("sinfo", "--json"): json.dumps(SINFO),
        ("squeue", "--json"): json.dumps(SQUEUE),
    })  # fmt: skip
    src = SlurmSource({}, conf_path=conf, runner=fake, nvml=None, clock=lambda: 1700000100.0)
    return src, SlurmJobs(src, wall=lambda: 1700000100.0)


def test_grouped_sinfo_entries_become_one_node_each(tmp_path):
    src, _ = open_newer(tmp_path)
    snap = src.poll()
    assert [(n.name, n.state, len(n.gpus), n.shares) for n in snap.nodes] == [
        ("node01", "MIXED", 4, ()),
        ("node02", "IDLE+DRAIN", 4, (("shard", 16, 0),)),
        ("node03", "IDLE+DRAIN", 4, (("shard", 16, 0),)),
    ]
    assert src.last is not None
    nodes = {n.name: n for n in src.last.nodes}
    assert nodes["node01"].partitions == ("gpu", "debug") and nodes["node01"].hostname == "host01"
    assert nodes["node02"].reason == "maintenance" and not nodes["node02"].available
    assert nodes["node02"].gres_used is None  # a grouped entry's use cannot be told apart per node


def test_newer_job_shapes(tmp_path):
    src, jobs = open_newer(tmp_path)
    jobs.tick(src.poll())
    run, wait = jobs.list()
    assert (run.id, run.state, run.allocation_text, run.time_limit_s, run.start_time) == (
        501, "RUNNING", "node01:0,1", 3600, 1700000010.0,
    )  # fmt: skip
    assert run.options == "--gres=gpu:h100:2 --time=01:00:00 --job-name=train"
    assert run.stdout_path == "/home/alice/train-501.out" and run.priority == 4294901000
    assert (wait.state, wait.reason, wait.time_limit_s, wait.request.describe()) == (
        "PENDING", "Resources", None, "4 h100 GPU(s) per node on 2 node(s)",
    )  # fmt: skip
    # the what-if: node02/03 are drained, node01 has 2 free of 4
    ahead = "; 1 job(s) ahead of it in Slurm's queue"  # job 502
    assert jobs.preview("--gres=gpu:h100:2").text == f"would start now on node01:2,3{ahead}"
    assert jobs.preview("--gres=gpu:h100:3").text.startswith("would wait (Priority)")  # behind job 502
