"""The Slurm source on the captured 22.05 outputs through a fake runner: the snapshot it builds, the JSON / text
choice, one-line failures, the real subprocess runner (no shell), the factory, and the merge with (fake) NVML."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import FIXTURES

from gputui.cli.source_factory import open_source
from gputui.core.errors import SourceError
from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.slurm.commands import Completed, run_process
from gputui.slurm.errors import SlurmError
from gputui.slurm.fake import FakeSlurm, captured_answers
from gputui.slurm.source import SlurmSource
from gputui.sources.base import Source
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml

SLURM = FIXTURES / "slurm"
VERSION = ("sinfo", "--version")
NODES_JSON, JOBS_JSON = ("sinfo", "--json"), ("squeue", "--json")
NODES_TEXT, JOBS_TEXT = ("scontrol", "-d", "show", "node"), ("scontrol", "show", "job", "-d")
# What 22.05 printed on the lab with slurmctld unreachable (SLURM_CONF pointing at a closed port):
# squeue --json exits 0 with an error entry, sinfo --json exits 1 with a bare one, scontrol ping says DOWN.
SQUEUE_DOWN = json.dumps({"meta": {}, "errors": [{"description": "Failed while looking for jobs", "error_number": -1,
                          "error": "Unspecified error", "source": "slurm_load_jobs"}], "jobs": []})  # fmt: skip
SINFO_DOWN = json.dumps({"meta": {}, "errors": [{"error": "Unspecified error", "errno": -1}], "nodes": []})
PING_DOWN = "Slurmctld(primary) at labhost is DOWN\n*****************************************\n"


def lab_answers() -> dict:
    return {**captured_answers(SLURM), ("scontrol", "ping"): Completed(1, PING_DOWN, "")}


@pytest.fixture
def conf(tmp_path) -> Path:
    p = tmp_path / "slurm.conf"
    p.write_text("# lab\nClusterName=testlab\nSlurmctldPort=16817\n")
    return p


def open_lab(conf: Path, fake: FakeSlurm | None = None, **kw) -> tuple[SlurmSource, FakeSlurm]:
    fake = fake or FakeSlurm(lab_answers())
    kw.setdefault("nvml", None)
    src = SlurmSource({"PATH": "/usr/bin"}, conf_path=conf, runner=fake, clock=lambda: 1796122497.0, **kw)
    return src, fake


# -- the snapshot --------------------------------------------------------------------------------------------------
def test_snapshot_from_the_22_05_fixtures(conf):
    src, fake = open_lab(conf)
    assert isinstance(src, Source)
    assert src.description == "Slurm 22.05.8 cluster testlab"
    snap = src.poll()
    assert fake.argvs() == [VERSION, NODES_JSON, JOBS_JSON]  # the cluster name came from slurm.conf
    assert all(c.env["SLURM_CONF"] == str(conf) and c.env["PATH"] == "/usr/bin" for c in fake.calls)
    assert [n.name for n in snap.nodes] == ["node01", "node02", "node03", "node04"]
    assert [(n.name, len(n.gpus), n.state) for n in snap.nodes] == [
        ("node01", 4, "MIXED"), ("node02", 4, "MIXED"), ("node03", 4, "MIXED"), ("node04", 2, "MIXED"),
    ]  # fmt: skip
    n1, _, n3, n4 = snap.nodes
    assert [(g.index, g.name, g.mig_mode_current) for g in n1.gpus] == [(i, "a100", None) for i in range(4)]
    # MIG-typed GRES: one MIG device each, shown as a GPU in MIG mode holding one instance of that profile
    assert [(g.index, g.name, g.mig_enabled, [gi.profile for gi in g.gpu_instances]) for g in n3.gpus] == [
        (0, "1g.10gb", True, ["1g.10gb"]), (1, "1g.10gb", True, ["1g.10gb"]),
        (2, "2g.20gb", True, ["2g.20gb"]), (3, "3g.40gb", True, ["3g.40gb"]),
    ]  # fmt: skip
    assert [(g.index, g.name) for g in n4.gpus] == [(0, None), (1, None)]  # untyped GRES: no name known
    assert n4.shares == (("mps", 200, 100),)  # two mps:50 jobs on GPU 0
    assert n1.shares == () and n3.shares == ()
    # Slurm knows nothing of load: every live value is N/A, never 0
    g = n1.gpus[0]
    assert (g.utilization_gpu, g.memory_used_mib, g.memory_total_mib, g.temperature_c, g.power_draw_w) == (
        None, None, None, None, None,
    )  # fmt: skip
    assert snap.timestamp == 1796122497.0
    poll = src.last
    assert poll is not None and poll.snapshot is snap and [j.id for j in poll.jobs] == list(range(1, 11))
    assert poll.hidden_busy == frozenset()  # every GPU in use is held by a job squeue shows


def test_gpus_in_use_by_jobs_squeue_does_not_show_are_noted(conf):
    answers = lab_answers()
    data = json.loads(answers[JOBS_JSON])
    data["jobs"] = [j for j in data["jobs"] if j["job_id"] != 2]  # as with PrivateData=jobs for another user
    answers[JOBS_JSON] = json.dumps(data)
    src, _ = open_lab(conf, FakeSlurm(answers))
    src.poll()
    assert src.last is not None and src.last.hidden_busy == {("node01", 0), ("node01", 1)}


def test_text_path_gives_the_same_snapshot(conf):
    answers = lab_answers()
    answers[VERSION] = "slurm 20.11.9\n"  # before --json: scontrol text
    src, fake = open_lab(conf, FakeSlurm(answers))
    text_snap = src.poll()
    assert fake.argvs()[1:] == [NODES_TEXT, JOBS_TEXT]
    json_snap = open_lab(conf)[0].poll()
    assert text_snap.nodes == json_snap.nodes
    assert src.reader.via == "text"


def test_a_build_without_json_falls_back_to_text_for_good(conf):
    answers = lab_answers()
    answers[NODES_JSON] = Completed(1, "", "sinfo: unrecognized option '--json'\nTry \"sinfo --help\"\n")
    src, fake = open_lab(conf, FakeSlurm(answers))
    first = src.poll()
    src.poll()
    assert fake.argvs()[1:] == [NODES_JSON, NODES_TEXT, JOBS_TEXT, NODES_TEXT, JOBS_TEXT]
    assert [len(n.gpus) for n in first.nodes] == [4, 4, 4, 2]


def test_forced_modes(conf):
    src, fake = open_lab(conf, mode="text")
    src.poll()
    assert fake.argvs() == [VERSION, NODES_TEXT, JOBS_TEXT]


def test_cluster_name_asked_of_slurmctld_when_the_conf_file_lacks_it(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text("SlurmctldPort=16817\n")
    answers = lab_answers()
    answers[("scontrol", "show", "config")] = (
        "Configuration data as of 2026-11-29T20:41:18\nClusterName             = testlab\n"
    )
    src, fake = open_lab(conf, FakeSlurm(answers))
    assert src.cluster_name == "testlab" and ("scontrol", "show", "config") in fake.argvs()


# -- failures: one line each ---------------------------------------------------------------------------------------
def one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_missing_client_fails_at_open(conf):
    with pytest.raises(SourceError) as e:
        open_lab(conf, FakeSlurm(lab_answers(), missing={"sinfo"}))
    assert one_line(e.value) == "Slurm: sinfo: command not found; is the Slurm client installed and on PATH?"


def test_missing_conf_file():
    with pytest.raises(SourceError, match="no such slurm.conf"):
        SlurmSource({}, conf_path="/nonexistent/slurm.conf", runner=FakeSlurm(lab_answers()))


def test_slurmctld_down_squeue(conf):
    answers = lab_answers()
    answers[JOBS_JSON] = SQUEUE_DOWN  # exit status 0, as 22.05 does
    src, _ = open_lab(conf, FakeSlurm(answers))
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value) == (
        "squeue --json: Failed while looking for jobs (Unspecified error) [slurm_load_jobs]; "
        "Slurmctld(primary) at labhost is DOWN"
    )


def test_slurmctld_down_sinfo(conf):
    answers = lab_answers()
    answers[NODES_JSON] = Completed(1, SINFO_DOWN, "")
    src, _ = open_lab(conf, FakeSlurm(answers))
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value) == "sinfo --json: Unspecified error; Slurmctld(primary) at labhost is DOWN"


def test_slurmctld_down_text_path(conf):
    answers = lab_answers()
    answers[NODES_TEXT] = Completed(
        1, "", "slurm_load_node error: Unable to contact slurm controller (connect failure)\n"
    )
    src, _ = open_lab(conf, FakeSlurm(answers), mode="text")
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value) == "slurm_load_node error: Unable to contact slurm controller (connect failure)"


def test_timeout(conf):
    src, fake = open_lab(conf, FakeSlurm(lab_answers(), hang={"squeue"}), timeout_s=7)
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value) == "squeue did not answer within 7 s; is slurmctld reachable?"
    assert fake.calls[-1].timeout == 7


@pytest.mark.parametrize(
    ("stdout", "message"),
    [
        ('{"meta": {}, "errors": [], "jobs": [{"job_id": 1, "job_st', "squeue --json: its output is not valid JSON"),
        ("", "squeue --json: its output is empty"),
        ('{"meta": {}, "errors": []}', "squeue --json: no 'jobs' list in its output"),
        ("[1, 2]", "squeue --json: not JSON"),
        ('{"jobs": [{"job_id": 3}]}', "squeue --json: a job without job_id or job_state; output cut short?"),
    ],
)
def test_malformed_json(conf, stdout, message):
    answers = lab_answers()
    answers[JOBS_JSON] = Completed(0, stdout, "")
    src, _ = open_lab(conf, FakeSlurm(answers))
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value).startswith(message)


def test_truncated_text(conf):
    answers = lab_answers()
    full = answers[JOBS_TEXT]
    answers[JOBS_TEXT] = full[: full.index("JobState=", full.index("JobId=4"))]
    src, _ = open_lab(conf, FakeSlurm(answers), mode="text")
    with pytest.raises(SourceError) as e:
        src.poll()
    assert one_line(e.value) == "scontrol show job: the record of job 4 is incomplete (no JobState=); output cut short?"


# -- the real runner -----------------------------------------------------------------------------------------------
def test_run_process_uses_no_shell():
    tricky = "$(echo injected); `echo x` | cat > /tmp/never && echo $HOME"
    done = run_process(["printf", "%s", tricky], {"PATH": os.environ["PATH"]}, 10)
    assert done == Completed(0, tricky, "")


def test_run_process_missing_binary_and_timeout():
    with pytest.raises(SlurmError) as e:
        run_process(["gputui-no-such-squeue"], {}, 5)
    assert one_line(e.value) == "gputui-no-such-squeue: command not found; is the Slurm client installed and on PATH?"
    with pytest.raises(SlurmError) as e:
        run_process(["sleep", "5"], {"PATH": os.environ["PATH"]}, 0.2)
    assert one_line(e.value) == "sleep did not answer within 0.2 s; is slurmctld reachable?"


def fake_sinfo(tmp_path: Path) -> Path:
    """A stand-in sinfo program that prints a version and where SLURM_CONF points."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    prog = bin_dir / "sinfo"
    prog.write_text('#!/bin/sh\necho "slurm-wlm 22.05.8"\n')
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_factory_opens_slurm_with_a_conf_path(tmp_path, conf, monkeypatch):
    monkeypatch.setenv("PATH", f"{fake_sinfo(tmp_path)}:/usr/bin:/bin")
    opened = open_source(f"slurm:{conf}")
    try:
        assert isinstance(opened.source, SlurmSource)
        assert opened.source.description == "Slurm 22.05.8 cluster testlab"
        assert opened.source.client.env["SLURM_CONF"] == str(conf)
    finally:
        opened.source.close()
    with pytest.raises(SourceError, match="/nonexistent.conf: no such slurm.conf"):
        open_source("slurm:/nonexistent.conf")


def test_factory_plain_slurm_uses_the_environment(tmp_path, conf, monkeypatch):
    monkeypatch.setenv("PATH", f"{fake_sinfo(tmp_path)}:/usr/bin:/bin")
    monkeypatch.setenv("SLURM_CONF", str(conf))
    opened = open_source("slurm")
    assert isinstance(opened.source, SlurmSource) and opened.source.cluster_name == "testlab"


# -- NVML merge ----------------------------------------------------------------------------------------------------
def live_node() -> NodeSnapshot:
    gpus = tuple(
        GpuSnapshot(i, uuid=f"GPU-{i:08d}-0000-0000-0000-000000000000", name="NVIDIA A100-SXM4-40GB",
                    memory_total_mib=40960, memory_used_mib=1000 * i, utilization_gpu=10 * i, utilization_memory=i,
                    temperature_c=40 + i,
                    mig_mode_current=False, mig_mode_pending=False)
        for i in range(4)
    )  # fmt: skip
    return NodeSnapshot("node01", gpus, driver_version="550.90.07", cuda_version="12.4")


def test_local_node_gets_nvml_values_and_keeps_slurm_state(conf, tmp_path):
    opened: list[str] = []

    def nvml(name: str) -> NvmlSource:
        opened.append(name)
        return NvmlSource(FakeNvml(live_node()), node_name=name, proc_root=str(tmp_path))

    src, _ = open_lab(conf, nvml=nvml, hostname="node01")
    snap = src.poll()
    assert opened == ["node01"]
    n1 = snap.node("node01")
    assert [(g.index, g.name, g.utilization_gpu, g.memory_used_mib, g.temperature_c) for g in n1.gpus] == [
        (i, "NVIDIA A100-SXM4-40GB", 10 * i, 1000 * i, 40 + i) for i in range(4)
    ]
    assert (n1.state, n1.driver_version, n1.cuda_version) == ("MIXED", "550.90.07", "12.4")
    assert all(g.utilization_gpu is None for g in snap.node("node02").gpus)  # other nodes: Slurm's view only
    assert snap.source == "Slurm 22.05.8 cluster testlab, live NVML values on node01"
    # the what-if still sees Slurm's GRES type for the merged GPUs
    assert src.last is not None and src.last.gpu_types[("node01", 0)] == "a100"
    src.close()


def test_no_merge_when_the_host_is_ambiguous_or_nvml_is_missing(conf, tmp_path):
    from gputui.core.errors import NvmlUnavailable

    calls: list[str] = []

    def nvml(name: str) -> NvmlSource:
        calls.append(name)
        raise NvmlUnavailable("NVML not available: no driver")

    src, _ = open_lab(conf, nvml=nvml, hostname="labhost")  # every lab node has NodeHostname=labhost
    assert all(g.utilization_gpu is None for g in src.poll().node("node01").gpus) and calls == []
    src, _ = open_lab(conf, nvml=nvml, hostname="node02")
    snap = src.poll()
    assert calls == ["node02"] and snap.source == "Slurm 22.05.8 cluster testlab"
