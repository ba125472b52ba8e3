"""Node CPUs, memory and features from Slurm: the captured 22.05 outputs (JSON and scontrol text), later JSON
shapes (hand-made, see test_slurm_newer.py), the merge with NVML's memory in use, and the what-if's view."""

from __future__ import annotations

import json

from conftest import FIXTURES
from test_slurm_source import NODES_JSON, conf, lab_answers, live_node, open_lab  # noqa: F401

from gputui.core.model import NodeResources
from gputui.slurm.fake import FakeSlurm
from gputui.slurm.formats.keyvalue import parse_records
from gputui.slurm.formats.nodes import node_from_json, node_from_record, nodes_from_json, nodes_from_text
from gputui.slurm.source import SlurmSource
from gputui.slurm.whatif import scheduling_view
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml

SLURM = FIXTURES / "slurm"
# the lab: 2 sockets x 8 cores, RealMemory=64000; CPUAlloc as `scontrol -d show node` printed it at capture time
LAB = {"node01": (16, 2, 64000, 0), "node02": (16, 1, 64000, 0), "node03": (16, 2, 64000, 0),
       "node04": (16, 2, 64000, 0)}  # fmt: skip


#: the lab's Features= (tests/slurm_lab.py), as Slurm reports them
FEATURES = {"node01": ("a100", "nvlink"), "node02": ("a100",), "node03": ("a100", "mig"), "node04": ("mps",)}


def figures(nodes) -> dict:
    return {n.name: (n.cpus, n.cpus_alloc, n.memory_mib, n.memory_alloc_mib) for n in nodes}


def test_22_05_json_and_both_text_outputs_give_cpus_and_memory():
    nodes = nodes_from_json(json.loads((SLURM / "22.05-sinfo.json").read_text()))
    assert figures(nodes) == LAB and {n.name: n.features for n in nodes} == FEATURES
    for name in ("22.05-scontrol-d-show-node.txt", "22.05-scontrol-show-node.txt"):
        nodes = nodes_from_text((SLURM / name).read_text())
        assert figures(nodes) == LAB, name
        assert {n.name: n.features for n in nodes} == FEATURES, name


def test_snapshot_carries_slurm_resources(conf):  # noqa: F811
    snap = open_lab(conf)[0].poll()
    n1 = snap.node("node01")
    assert n1.resources == NodeResources(cpus=16, memory_mib=64000, cpus_alloc=2, memory_alloc_mib=0)
    assert n1.resources.memory_used_mib is None  # Slurm does not say what the OS has in use
    assert n1.features == ("a100", "nvlink")


def test_features_from_json_strings_lists_and_text():
    base = {"name": "n1", "state": "idle"}
    assert node_from_json({**base, "features": "a100,ib", "active_features": "a100,ib"}).features == ("a100", "ib")
    assert node_from_json({**base, "features": "a100,ib", "active_features": "a100"}).features == ("a100",)
    assert node_from_json({**base, "features": ["v100m32", "nvlink"]}).features == ("v100m32", "nvlink")
    assert node_from_json({**base, "active_features": ""}).features == ()
    n = node_from_json(base)
    assert (n.cpus, n.memory_mib, n.cpus_alloc, n.memory_alloc_mib, n.features) == (None, None, None, None, ())
    text = (
        "NodeName=gpu07 Arch=x86_64 CoresPerSocket=32\n   CPUAlloc=40 CPUEfctv=128 CPUTot=128 CPULoad=35.10\n"
        "   AvailableFeatures=A100-80GB,ib hdr\n   ActiveFeatures=A100-80GB,ib hdr\n"
        "   RealMemory=1031000 AllocMem=409600 FreeMem=500000 Sockets=2 Boards=1\n   State=MIXED ThreadsPerCore=2\n"
    )
    (rec,) = parse_records(text, "NodeName", "scontrol show node")
    node = node_from_record(rec)
    assert (node.cpus, node.cpus_alloc, node.memory_mib, node.memory_alloc_mib) == (128, 40, 1031000, 409600)
    assert node.features == ("A100-80GB", "ib hdr")  # as given, case kept
    (bare,) = nodes_from_text("NodeName=n2 State=IDLE CPUTot=8\n")
    assert (bare.cpus, bare.memory_mib, bare.cpus_alloc, bare.features) == (8, None, None, ())


def test_later_json_shapes():
    def num(n):
        return {"set": True, "infinite": False, "number": n}

    one = node_from_json({"name": "n1", "state": ["MIXED"], "cpus": 64, "alloc_cpus": 8,
                          "real_memory": num(515000), "alloc_memory": num(32768), "features": ["h100"],
                          "active_features": ["h100"]})  # fmt: skip
    assert figures([one]) == {"n1": (64, 8, 515000, 32768)} and one.features == ("h100",)
    entries = {"sinfo": [
        {"partition": {"name": "gpu"}, "node": {"state": ["MIXED"]}, "nodes": {"nodes": ["n1"]},
         "cpus": {"allocated": 8, "total": 64, "minimum": 64, "maximum": 64},
         "memory": {"minimum": 515000, "maximum": 515000, "allocated": 32768},
         "features": {"total": "h100,ib", "active": "h100"}, "gres": {}},
        {"partition": {"name": "gpu"}, "node": {"state": ["IDLE"]}, "nodes": {"nodes": ["n2", "n3"]},
         "cpus": {"allocated": 0, "total": 160, "minimum": 64, "maximum": 96},
         "memory": {"minimum": 257000, "maximum": 257000, "allocated": 0},
         "features": {"total": "a100", "active": "a100"}, "gres": {}},
    ]}  # fmt: skip
    got = {n.name: n for n in nodes_from_json(entries)}
    assert figures(got.values()) == {
        "n1": (64, 8, 515000, 32768),
        "n2": (None, None, 257000, None),  # grouped: sizes only where every node agrees, no allocation
        "n3": (None, None, 257000, None),
    }
    assert got["n1"].features == ("h100",) and got["n2"].features == ("a100",)


def test_local_node_merge_keeps_slurm_sizes_with_the_machines_memory_in_use(conf, tmp_path):  # noqa: F811
    (tmp_path / "meminfo").write_text("MemTotal:       65536000 kB\nMemAvailable:   45056000 kB\n")

    def nvml(name: str) -> NvmlSource:
        return NvmlSource(FakeNvml(live_node()), node_name=name, proc_root=str(tmp_path), cpus=lambda: 32)

    src, _ = open_lab(conf, nvml=nvml, hostname="node01")
    n1 = src.poll().node("node01")
    # Slurm's CPUs and RealMemory (what it schedules against), the OS's memory in use
    assert n1.resources == NodeResources(cpus=16, memory_mib=64000, cpus_alloc=2, memory_alloc_mib=0,
                                         memory_used_mib=20000)  # fmt: skip
    src.close()


def test_what_if_view_keeps_resources_and_features(conf):  # noqa: F811
    answers = lab_answers()
    data = json.loads(answers[NODES_JSON])
    data["nodes"][0]["active_features"] = "a100,nvlink"
    answers[NODES_JSON] = json.dumps(data)
    src = SlurmSource({"PATH": "/usr/bin"}, conf_path=conf, runner=FakeSlurm(answers), nvml=None)
    src.poll()
    assert src.last is not None
    view = scheduling_view(src.last, [])
    assert view.node("node01").features == ("a100", "nvlink")
    assert view.node("node02").resources == NodeResources(16, 64000, 1, 0)
