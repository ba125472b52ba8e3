"""Parsers of Slurm's output: GRES strings, host lists, scontrol key=value text, JSON values, versions, and the
22.05 fixtures read through both paths (JSON and text) to the same nodes and jobs."""

from __future__ import annotations

import time

import pytest
from conftest import FIXTURES

from gputui.slurm.errors import SlurmError
from gputui.slurm.formats import json_values as jv
from gputui.slurm.formats.gres import GresItem, parse_gres, parse_tres_gres
from gputui.slurm.formats.hosts import expand
from gputui.slurm.formats.job_info import jobs_from_json, jobs_from_text, text_duration
from gputui.slurm.formats.keyvalue import parse_records
from gputui.slurm.formats.nodes import nodes_from_json, nodes_from_text
from gputui.slurm.formats.version import SlurmVersion, means_no_json, parse_version

SLURM = FIXTURES / "slurm"


def read(name: str) -> str:
    return (SLURM / name).read_text()


@pytest.fixture
def utc(monkeypatch):
    """scontrol prints local times; the fixtures were captured on a machine in UTC."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# -- GRES ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("gpu:a100:4", [GresItem("gpu", "a100", 4)]),
        ("gpu:a100:2(IDX:0-1)", [GresItem("gpu", "a100", 2, (0, 1))]),
        ("gpu:1g.10gb:2", [GresItem("gpu", "1g.10gb", 2)]),
        ("gpu:2,mps:200", [GresItem("gpu", None, 2), GresItem("mps", None, 200)]),
        ("gpu:a100:4(S:0-1)", [GresItem("gpu", "a100", 4, sockets=(0, 1))]),
        ("shard:8", [GresItem("shard", None, 8)]),
        ("gpu", [GresItem("gpu", None, 1)]),
        ("gpu:a100", [GresItem("gpu", "a100", 1)]),
        ("gpu:4(IDX:0,2-3)", [GresItem("gpu", None, 4, (0, 2, 3))]),
        ("gpu:0,mps:(null):1(IDX:0)", [GresItem("gpu", None, 0), GresItem("mps", None, 1, (0,))]),  # node04, 22.05
        ("gpu:3g.40gb:0(IDX:)", [GresItem("gpu", "3g.40gb", 0, ())]),
        ("gpu:2g.20gb:0(IDX:N/A)", [GresItem("gpu", "2g.20gb", 0, ())]),
        ("mps:1K", [GresItem("mps", None, 1024)]),
        ("(null)", []),
        ("", []),
    ],
)
def test_gres_strings(text, items):
    assert list(parse_gres(text)) == items


def test_gres_mig_types_are_recognised_and_plain_types_are_not():
    assert [g.mig_profile for g in parse_gres("gpu:1g.10gb:2,gpu:nvidia_a100_3g.20gb:1,gpu:a100:4,gpu:2")] == [
        "1g.10gb", "3g.20gb", None, None,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("gres:gpu:a100:2", [GresItem("gpu", "a100", 2)]),  # 22.05 (fixture)
        ("gres:mps:50", [GresItem("mps", None, 50)]),
        # hand-made, the form later releases print (not verified on a real cluster):
        ("gres/gpu:a100=2", [GresItem("gpu", "a100", 2)]),
        ("cpu=1,mem=4G,gres/gpu=2", [GresItem("gpu", None, 2)]),
        (None, []),
    ],
)
def test_tres_gres(text, items):
    assert list(parse_tres_gres(text)) == items


@pytest.mark.parametrize("bad", ["gpu:a100:x", "gpu:2(IDX:0-z)", "gpu:2(IDX:3-1)", "g@u:1"])
def test_bad_gres_is_one_line_error(bad):
    with pytest.raises(SlurmError) as e:
        parse_gres(bad)
    assert "\n" not in str(e.value) and "GRES" in str(e.value)


def test_host_lists():
    assert expand("node[01-04,07]") == ("node01", "node02", "node03", "node04", "node07")
    assert expand("node[02-03],gpu-a") == ("node02", "node03", "gpu-a")
    assert expand("(null)") == () and expand(None) == () and expand("") == ()
    with pytest.raises(SlurmError, match="host list"):
        expand("node[1-")


# -- scontrol text -------------------------------------------------------------------------------------------------
NODE_WITH_REASON = """\
NodeName=node04 Arch=x86_64 CoresPerSocket=8
   Gres=gpu:2,mps:200
   NodeAddr=127.0.0.1 NodeHostName=labhost Version=22.05.8
   OS=Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0
   State=MIXED+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A
   Partitions=gpu
   Reason=maintenance window: fan=broken [root@2026-11-29T20:44:26]

"""  # observed on the 22.05 lab after `scontrol update NodeName=node04 State=DRAIN Reason="..."`


def test_rest_of_line_values_keep_spaces_and_equals_signs():
    (rec,) = parse_records(NODE_WITH_REASON, "NodeName", "scontrol show node")
    assert rec.fields["Reason"] == "maintenance window: fan=broken [root@2026-11-29T20:44:26]"
    assert rec.fields["OS"] == "Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0"
    assert rec.fields["State"] == "MIXED+DRAIN"
    assert "fan" not in rec.fields
    (node,) = nodes_from_text(NODE_WITH_REASON)
    assert node.state == "MIXED+DRAIN" and not node.available
    assert node.reason == "maintenance window: fan=broken [root@2026-11-29T20:44:26]"


def test_command_with_spaces_and_detail_lines():
    text = (
        "JobId=14 JobName=ex3\n   UserId=alice(1000) GroupId=alice(1000) MCS_label=N/A\n"
        "   JobState=RUNNING Reason=None Dependency=(null)\n   NodeList=node[02-03]\n"
        "   JOB_GRES=gpu:a100:2,gpu:1g.10gb:1\n"
        "     Nodes=node02 CPU_IDs=0 Mem=0 GRES=gpu:a100:2(IDX:0-1)\n"
        "     Nodes=node03 CPU_IDs=1 Mem=0 GRES=gpu:1g.10gb:1(IDX:1)\n"
        "   Command=/tmp/lab/my job.sh arg1 a=b\n   WorkDir=/tmp/lab\n"
    )
    (job,) = jobs_from_text(text)
    assert job.command == "/tmp/lab/my job.sh arg1 a=b"
    assert (job.user, job.uid) == ("alice", 1000)
    assert job.gres_alloc == (
        ("node02", (GresItem("gpu", "a100", 2, (0, 1)),)),
        ("node03", (GresItem("gpu", "1g.10gb", 1, (1,)),)),
    )


def test_empty_and_unexpected_scontrol_output():
    assert jobs_from_text("No jobs in the system\n") == []
    with pytest.raises(SlurmError, match="unexpected output 'slurm_load_jobs error"):
        jobs_from_text("slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n")


def test_truncated_scontrol_text_is_one_clear_line():
    full = read("22.05-scontrol-show-job-d.txt")
    cut = full[: full.index("JobState=", full.index("JobId=7"))]  # the capture ends inside job 7's record
    with pytest.raises(SlurmError) as e:
        jobs_from_text(cut)
    assert str(e.value) == ("scontrol show job: the record of job 7 is incomplete (no JobState=); output cut short?")
    nodes = read("22.05-scontrol-show-node.txt")
    with pytest.raises(SlurmError, match="record of node04 is incomplete"):
        nodes_from_text(nodes[: nodes.index("State=", nodes.index("NodeName=node04"))])


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("UNLIMITED", None), ("365-00:00:00", 365 * 86400), ("01:30:00", 5400), ("10:05", 605), ("junk", None)],
)
def test_scontrol_durations(text, seconds):
    assert text_duration(text) == seconds


# -- JSON values and versions --------------------------------------------------------------------------------------
def test_json_numbers_in_both_generations():
    assert jv.number(60) == 60 and jv.number(None) is None and jv.number(True) is None
    # hand-made, in the v0.0.40+ shape the public data_parser documentation describes:
    assert jv.number({"set": True, "infinite": False, "number": 60}) == 60
    assert jv.number({"set": False, "infinite": False, "number": 0}) is None
    assert jv.number({"set": True, "infinite": True, "number": 0}) is None
    assert jv.words("mixed") == ("MIXED",) and jv.words(["IDLE", "DRAIN"]) == ("IDLE", "DRAIN")


@pytest.mark.parametrize(
    ("text", "version", "json"),
    [
        ("slurm-wlm 22.05.8\n", SlurmVersion(22, 5, 8), True),
        ("slurm 24.11.1\n", SlurmVersion(24, 11, 1), True),
        ("slurm 21.08.8-2\n", SlurmVersion(21, 8, 8), False),
        ("slurm 20.11.9\n", SlurmVersion(20, 11, 9), False),
    ],
)
def test_versions(text, version, json):
    v = parse_version(text)
    assert v == version and v.has_json is json


def test_version_fixture_and_garbage():
    assert str(parse_version(read("22.05-sinfo-version.txt"))) == "22.05.8"
    with pytest.raises(SlurmError, match="cannot read a Slurm version"):
        parse_version("sinfo: command is broken")


def test_no_json_hints():
    assert means_no_json("sinfo: unrecognized option '--json'")
    assert means_no_json("sinfo: error: Unable to find data_parser plugin")
    assert not means_no_json("slurm_load_jobs error: Unable to contact slurm controller (connect failure)")


# -- the 22.05 fixtures, both paths --------------------------------------------------------------------------------
def test_nodes_json_and_text_agree():
    from_json = nodes_from_json(jv.load(read("22.05-sinfo.json"), "sinfo --json", ("nodes", "sinfo")))
    from_text = nodes_from_text(read("22.05-scontrol-d-show-node.txt"))
    assert from_json == from_text
    by = {n.name: n for n in from_json}
    assert [n.name for n in from_json] == ["node01", "node02", "node03", "node04"]
    assert by["node03"].gres == (
        GresItem("gpu", "1g.10gb", 2), GresItem("gpu", "2g.20gb", 1), GresItem("gpu", "3g.40gb", 1),
    )  # fmt: skip
    assert by["node01"].gres_used == (GresItem("gpu", "a100", 3, (0, 1, 2)), GresItem("mps", None, 0))
    assert by["node04"].gres == (GresItem("gpu", None, 2), GresItem("mps", None, 200))
    assert all(n.state == "MIXED" and n.hostname == "labhost" and n.available for n in from_json)
    # without -d, scontrol prints no GresUsed: "not shown", which is not "none used"
    assert all(n.gres_used is None for n in nodes_from_text(read("22.05-scontrol-show-node.txt")))


def test_jobs_json_and_text_agree(utc):
    from_json = jobs_from_json(jv.load(read("22.05-squeue.json"), "squeue --json", ("jobs",)))
    from_text = jobs_from_text(read("22.05-scontrol-show-job-d.txt"))
    assert [j.id for j in from_json] == [j.id for j in from_text] == list(range(1, 11))
    fields = ("state", "reason", "name", "user", "uid", "nodes", "gres_alloc", "tres_per_node", "tres_per_job",
              "submit_time", "start_time", "priority", "exit_code", "signal", "exclusive", "dependency")  # fmt: skip
    for a, b in zip(from_json, from_text, strict=True):
        for f in fields:
            assert getattr(a, f) == getattr(b, f), (a.id, f)
    jobs = {j.id: j for j in from_json}
    assert [jobs[i].state for i in range(1, 11)] == [
        "COMPLETED", *["RUNNING"] * 6, "PENDING", "CANCELLED", "FAILED",
    ]  # fmt: skip
    assert jobs[8].reason == "Resources" and jobs[10].reason == "BadConstraints"
    assert jobs[7].nodes == ("node02", "node03")
    assert jobs[7].gres_alloc[1] == (
        "node03",
        (GresItem("gpu", "1g.10gb", 1, (1,)), GresItem("gpu", "2g.20gb", 1, (2,)), GresItem("gpu", "3g.40gb", 0, ())),
    )
    assert jobs[5].gres_alloc == (("node04", (GresItem("mps", None, 50, (0,)),)),)
    assert jobs[3].tres_per_job == "gres:gpu:1" and jobs[3].tres_per_node is None
    assert jobs[2].time_limit_s is None and jobs[1].time_limit_s == 365 * 86400
    assert (jobs[10].exit_code, jobs[10].signal) == (None, 1)  # ExitCode=0:1, raw status 1 in the JSON
    assert jobs[1].cluster == "testlab"


def test_exit_status_decoding():
    from gputui.slurm.formats.job_info import job_from_json

    base = {"job_id": 14, "job_state": "FAILED"}
    assert job_from_json({**base, "exit_code": 768}).exit_code == 3  # observed on the 22.05 lab: `exit 3`
    later = {"status": ["EXITED"], "return_code": {"set": True, "infinite": False, "number": 3}}  # hand-made
    assert job_from_json({**base, "job_state": ["FAILED"], "exit_code": later}).exit_code == 3


def test_gres_detail_not_matching_nodes_is_an_error():
    from gputui.slurm.formats.job_info import job_from_json

    with pytest.raises(SlurmError, match="2 gres_detail entries for 1 nodes"):
        job_from_json({"job_id": 3, "job_state": "RUNNING", "nodes": "node01", "gres_detail": ["gpu:1(IDX:0)"] * 2})
