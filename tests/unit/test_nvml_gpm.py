"""GPM through the NVML source against the fake NVML: per-GPU and per-MIG-instance activity, and every way it is N/A."""

from __future__ import annotations

import logging
from dataclasses import replace

import pynvml
import pytest
from conftest import FIXTURES

from gputui.core.model import Activity, ClusterSnapshot, GpuInstance, GpuSnapshot, NodeSnapshot, activity_of_gpu
from gputui.core.serialize import from_data, snapshot_from_json, snapshot_to_json, to_data
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml
from gputui.sources.recording import RecordingReader

DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"
BUSY = Activity(80, 55, 40, 30)
QUIET = Activity(0, 0, 0, 0)


@pytest.fixture(scope="module")
def frame():
    r = RecordingReader(DEMO)
    try:
        yield r.frame(300)
    finally:
        r.close()


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def with_activity(node: NodeSnapshot, gpu: int, *per_gi: Activity | None) -> NodeSnapshot:
    g = node.gpus[gpu]
    gis = tuple(replace(gi, activity=a) for gi, a in zip(g.gpu_instances, per_gi, strict=True))
    gpus = list(node.gpus)
    gpus[gpu] = replace(g, gpu_instances=gis)
    return replace(node, gpus=tuple(gpus))


def make(node: NodeSnapshot, **kw) -> tuple[FakeNvml, NvmlSource, Clock]:
    clock = Clock()
    fake = FakeNvml(node, clock=clock, **kw)
    return fake, NvmlSource(fake, node_name=node.name, proc_root="/nonexistent", users=lambda uid: None), clock


def polls(src: NvmlSource, clock: Clock, n: int, step: float = 2.0) -> list[GpuSnapshot]:
    out = []
    for _ in range(n):
        out.append(src.poll().nodes[0].gpus)
        clock.t += step
    return out


def test_h100_in_mig_mode_reports_each_instance_from_the_second_poll(frame):
    node = with_activity(frame.node("node03"), 0, BUSY, QUIET, None, Activity(12, 8, 3, 0))
    fake, src, clock = make(node)
    first, second, third = polls(src, clock, 3)
    assert first[0].activity is None and all(gi.activity is None for gi in first[0].gpu_instances)
    assert first[0].activity_na is None  # no reason: the figures come with the next poll
    gis = second[0].gpu_instances
    assert [gi.activity for gi in gis] == [BUSY, QUIET, None, Activity(12, 8, 3, 0)]
    assert second[0].activity_na is None
    assert third[0].gpu_instances == gis
    # one sample per instance each poll (the GPU's figure is theirs summed); buffers allocated once, two each
    assert fake.calls["nvmlGpmMigSampleGet"] == 3 * (4 + 2)
    assert fake.calls["nvmlGpmSampleGet"] == 0
    assert fake.calls["nvmlGpmSampleAlloc"] == 2 * (4 + 2)
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == 2


def test_a_figure_is_the_mean_over_the_interval_between_two_samples(frame):
    node = frame.node("node03")
    fake, src, clock = make(with_activity(node, 0, QUIET, QUIET, QUIET, QUIET))
    src.poll()
    clock.t += 1.0
    fake.load(with_activity(node, 0, BUSY, QUIET, QUIET, QUIET))  # busy for the last 3 s of 4
    clock.t += 3.0
    gi = src.poll().nodes[0].gpus[0].gpu_instances[0]
    assert gi.activity == Activity(60, 41, 30, 22)


def test_the_whole_gpu_in_mig_mode_is_its_instances_weighted_by_slices(frame):
    node = with_activity(frame.node("node03"), 0, BUSY, QUIET, QUIET, QUIET)  # 3g of 7 busy
    _, src, clock = make(node)
    g = polls(src, clock, 2)[1][0]
    assert g.activity is not None and g.activity.sm_active == round(80 * 3 / 7)
    own = g.gpu_instances[0]
    assert activity_of_gpu(own.activity, 3, 7) == Activity(34, 24, 17, 13)


def test_a100_in_mig_mode_is_na_with_the_reason_asked_once(frame, caplog):
    node = frame.node("node02")  # A100s, one in MIG mode with four instances
    fake, src, clock = make(node)
    with caplog.at_level(logging.INFO, logger="gputui.nvml"):
        shots = polls(src, clock, 4)
    for gpus in shots:
        for g in gpus:
            assert g.activity is None and all(gi.activity is None for gi in g.gpu_instances)
            assert g.activity_na == "no GPM on NVIDIA A100-SXM4-40GB (it needs Hopper or newer)"
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == 2  # once per GPU, not per poll
    assert fake.calls["nvmlGpmSampleGet"] == fake.calls["nvmlGpmMigSampleGet"] == 0
    said = [r for r in caplog.records if "no GPM" in r.getMessage()]
    assert len(said) == 2


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        (lambda f: f.fail("nvmlGpmQueryDeviceSupport", error=pynvml.NVML_ERROR_NO_PERMISSION), "Insufficient Perm"),
        (lambda f: f.fail("nvmlGpmMigSampleGet", error=pynvml.NVML_ERROR_NO_PERMISSION), "Insufficient Perm"),
        (lambda f: f.fail("nvmlGpmSampleAlloc", error=pynvml.NVML_ERROR_MEMORY), "Insufficient Memory"),
        (lambda f: f.remove("nvmlGpmQueryDeviceSupport"), "not in the installed nvidia-ml-py"),
        (lambda f: f.fail("nvmlGpmQueryDeviceSupport", error=pynvml.NVML_ERROR_FUNCTION_NOT_FOUND), "Not Found"),
    ],
)
def test_a_driver_that_refuses_gpm_leaves_na_with_its_reason(frame, setup, reason):
    node = with_activity(frame.node("node03"), 0, BUSY, BUSY, BUSY, BUSY)
    fake, src, clock = make(node)
    setup(fake)
    shots = polls(src, clock, 3)
    for gpus in shots:
        g = gpus[0]
        assert g.activity is None and all(gi.activity is None for gi in g.gpu_instances)
        assert g.activity_na is not None and reason in g.activity_na
        assert g.memory_used_mib == node.gpus[0].memory_used_mib  # the rest still answers
    assert fake.calls["nvmlGpmMetricsGet"] == 0
    assert len(fake.gpm.samples) == 0  # nothing left allocated


def test_one_instance_refused_keeps_the_others(frame):
    node = with_activity(frame.node("node03"), 0, BUSY, QUIET, QUIET, BUSY)
    fake, src, clock = make(node)
    fake.gpm.supported[1] = False  # the second H100 as if GPM were missing
    refused = fake.node.gpus[0].gpu_instances[1].gi_id
    fake.gpm.refused.add((0, refused))
    g, other = polls(src, clock, 2)[1]
    assert [gi.activity for gi in g.gpu_instances] == [BUSY, None, QUIET, BUSY]
    assert g.activity_na == f"GPM: Insufficient Permissions (GPU instance {refused})"
    assert other.activity_na == "no GPM on NVIDIA H100 80GB HBM3 (it needs Hopper or newer)"


def test_gpm_off_makes_no_gpm_call(frame):
    fake = FakeNvml(frame.node("node03"))
    src = NvmlSource(fake, node_name="node03", proc_root="/nonexistent", gpm=False)
    src.poll()
    src.poll()
    assert not [n for n in fake.calls if n.startswith("nvmlGpm")]


def test_a_lost_gpu_asks_again_when_it_is_back_and_close_frees_every_sample(frame):
    node = with_activity(frame.node("node03"), 0, BUSY, BUSY, BUSY, BUSY)
    fake, src, clock = make(node)
    polls(src, clock, 2)
    fake.fail(None, gpu=0, error=pynvml.NVML_ERROR_GPU_IS_LOST)
    assert polls(src, clock, 1)[0][0].lost
    assert len(fake.gpm.samples) == 2 * 2  # GPU 0's given back, GPU 1's two instances' kept
    fake.heal(None, gpu=0)
    back = polls(src, clock, 2)
    assert back[1][0].gpu_instances[0].activity == BUSY
    assert fake.calls["nvmlGpmQueryDeviceSupport"] == 3
    src.close()
    assert fake.gpm.samples == {}


def test_the_fake_checks_nvmls_rules_for_samples():
    node = NodeSnapshot("n", (GpuSnapshot(0, name="NVIDIA H100 80GB HBM3", activity=BUSY),))
    clock = Clock()
    fake = FakeNvml(node, clock=clock)
    fake.nvmlInit()
    h = fake.nvmlDeviceGetHandleByIndex(0)
    a, b = fake.nvmlGpmSampleAlloc(), fake.nvmlGpmSampleAlloc()
    fake.nvmlGpmSampleGet(h, a)
    mg = pynvml.c_nvmlGpmMetricsGet_t()
    mg.version, mg.numMetrics, mg.sample1, mg.sample2 = 1, 1, a, a
    mg.metrics[0].metricId = pynvml.NVML_GPM_METRIC_SM_UTIL
    with pytest.raises(pynvml.NVMLError) as same:  # two samples of the same moment
        fake.nvmlGpmMetricsGet(mg)
    assert same.value.value == pynvml.NVML_ERROR_INVALID_ARGUMENT
    clock.t += 1
    fake.nvmlGpmSampleGet(h, b)
    mg.sample2 = b
    assert fake.nvmlGpmMetricsGet(mg).metrics[0].value == pytest.approx(80.0)
    mg.version = 7
    with pytest.raises(pynvml.NVMLError) as version:
        fake.nvmlGpmMetricsGet(mg)
    assert version.value.value == pynvml.NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    with pytest.raises(pynvml.NVMLError):  # not in MIG mode
        fake.nvmlGpmMigSampleGet(h, 1, a)
    fake.nvmlGpmSampleFree(a)
    with pytest.raises(pynvml.NVMLError):
        fake.nvmlGpmSampleFree(a)


def test_activity_round_trips_through_json_and_older_data_loads():
    gi = GpuInstance(1, "3g.40gb", activity=Activity(12, None, 3, 0))
    g = GpuSnapshot(0, name="H100", gpu_instances=(gi,), activity=BUSY)
    na = GpuSnapshot(1, name="A100", activity_na="no GPM on A100 (it needs Hopper or newer)")
    snap = ClusterSnapshot(5.0, (NodeSnapshot("n", (g, na)),))
    assert snapshot_from_json(snapshot_to_json(snap)) == snap
    old = to_data(snap)
    for gd in old["nodes"][0]["gpus"]:
        del gd["activity"], gd["activity_na"]
        for gid in gd["gpu_instances"]:
            del gid["activity"]
    loaded = from_data(ClusterSnapshot, old)
    assert loaded.nodes[0].gpus[0].activity is None and loaded.nodes[0].gpus[0].gpu_instances[0].activity is None


def test_a_refusal_keeps_its_reason_after_a_mig_mode_change(frame):
    """Asked once: after the reader is made again (MIG mode changed) the lasting N/A is not asked again, and its
    reason is still NVML's words, not another call's."""
    node = frame.node("node03")
    fake, src, clock = make(node)
    fake.fail("nvmlGpmQueryDeviceSupport", gpu=0, error=pynvml.NVML_ERROR_NO_PERMISSION)
    first = polls(src, clock, 1)[0][0]
    g = node.gpus[0]
    fake.load(replace(node, gpus=(replace(g, mig_mode_current=False, gpu_instances=(), processes=()), node.gpus[1])))
    again = polls(src, clock, 2)
    assert first.activity_na == again[1][0].activity_na == "GPM: Insufficient Permissions"
