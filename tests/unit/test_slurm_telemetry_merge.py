"""The merge of Slurm's allocations with the GPU values read over SSH: a table of cases."""

from __future__ import annotations

import pytest

from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot, NodeFault, NodeSnapshot
from gputui.slurm.telemetry import merge_node, merge_telemetry

T = 1796122497.0


def slurm(*gpus: GpuSnapshot, name: str = "n1") -> NodeSnapshot:
    return NodeSnapshot(name, gpus, state="MIXED")


def live(*gpus: GpuSnapshot, name: str = "n1", fault: NodeFault | None = None) -> NodeSnapshot:
    return NodeSnapshot(name, gpus, driver_version="550.1", fault=fault)


def g(i: int, uuid: str | None = None, util: int | None = None, **kw: object) -> GpuSnapshot:
    return GpuSnapshot(i, uuid=uuid, utilization_gpu=util, **kw)  # type: ignore[arg-type]


MIG = g(2, name="1g.10gb", mig_mode_current=True, gpu_instances=(GpuInstance(0, "1g.10gb"),))
DOWN = NodeFault("unreachable", "ssh: connect to host n1 port 22: Connection refused", T)

CASES = [
    # (Slurm's GPUs, the host's GPUs, expected utilization per Slurm GPU, note words or None)
    ("by index", [g(0), g(1)], [g(0, "U0", 5), g(1, "U1", 0)], [5, 0], None),
    ("UUIDs agree", [g(0, "U0"), g(1, "U1")], [g(0, "U0", 5), g(1, "U1", 7)], [5, 7], None),
    ("UUIDs swap the order", [g(0, "U1"), g(1, "U0")], [g(0, "U0", 5), g(1, "U1", 7)], [7, 5], None),
    ("Slurm's UUID not on the host", [g(0, "UX")], [g(0, "U0", 5)], [None], "is not on the host"),
    ("a GPU Slurm has, the host not", [g(0), g(1)], [g(0, "U0", 5)], [5, None], "GPU 1: not seen"),
    ("a GPU the host has, Slurm not", [g(0)], [g(0, "U0", 5), g(1, "U1", 6)], [5], "Slurm manages 1"),
    ("a MIG-typed GRES keeps Slurm's entry", [g(0), MIG], [g(0, "U0", 5), g(1, "U1", 6), g(2, "U2", 9)],
     [5, None], "the host has 3 GPUs"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "s", "lv", "utils", "note"), CASES, ids=[c[0] for c in CASES])
def test_merge_node(what: str, s: list[GpuSnapshot], lv: list[GpuSnapshot], utils: list[int | None], note: str | None):
    node, said = merge_node(slurm(*s), live(*lv))
    assert [x.utilization_gpu for x in node.gpus] == utils
    assert [x.index for x in node.gpus] == [x.index for x in s]  # Slurm's IDX stays the key jobs are held by
    assert node.state == "MIXED" and node.fault is None
    if note is None:
        assert said is None and node.driver_version == "550.1"
    else:
        assert said is not None and note in said and said.startswith("n1: ")


def test_a_node_whose_telemetry_is_down_keeps_slurms_gpus_and_shows_the_fault() -> None:
    node, note = merge_node(slurm(g(0), g(1)), live(fault=DOWN))
    assert node.fault == DOWN and [x.index for x in node.gpus] == [0, 1] and note is None


def test_merge_telemetry_by_node_name() -> None:
    s = ClusterSnapshot(T, (slurm(g(0), name="n1"), slurm(g(0), name="n2")), "Slurm")
    lv = ClusterSnapshot(T + 1, (live(g(0, "A", 3), name="n2"), live(g(0, "B", 4), name="other")), "ssh")
    merged = merge_telemetry(s, lv)
    assert merged.snapshot.timestamp == T and merged.snapshot.source == "Slurm"
    assert [n.gpus[0].utilization_gpu for n in merged.snapshot.nodes] == [None, 3]
    assert merged.notes == ()
