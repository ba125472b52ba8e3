"""The /metrics text of real frames, read back with prometheus_client's parser: dcgm-exporter's names, types and
labels, MIG instance labels, job labels from the queue and from a recording's events, absent values, escaping."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jobs_helpers import T0, machine
from list_source import ListSource
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from gputui.cli.source_factory import open_source
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.plain_text import sanitise
from gputui.export.attribution import Attribution, Holder, from_events
from gputui.export.collector import render
from gputui.export.feed import ExportFeed
from gputui.export.frame import Frame
from gputui.jobs.service import JobService

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def parse(text: bytes) -> dict[str, list]:
    return {f.name: f.samples for f in text_string_to_metric_families(text.decode())}


def demo_frame(at: float = 300) -> Frame:
    src = open_source("demo").source
    snap = src.seek(src.start_time + at)  # type: ignore[attr-defined]
    return Frame(snap, from_events(src.events_until(snap.timestamp)), snap.timestamp)  # type: ignore[attr-defined]


def default_counters() -> dict[str, str]:
    rows = (r for r in csv.reader((FIXTURES / "dcgm-exporter" / "default-counters.csv").open()) if r)
    return {r[0].strip(): r[1].strip() for r in rows if not r[0].startswith("#")}


def test_dcgm_names_and_types_are_dcgm_exporters_defaults() -> None:
    text = render(demo_frame())
    counters = default_counters()
    fams = list(text_string_to_metric_families(text.decode()))
    dcgm = [f for f in fams if f.name.startswith("DCGM_")]
    assert {f.name for f in dcgm} >= {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
                                      "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK",
                                      "DCGM_FI_DEV_MEM_CLOCK"}  # fmt: skip
    for f in dcgm:
        assert counters.get(f.name) == f.type, f.name
    assert all(f.name.startswith(("DCGM_FI_DEV_", "gputui_")) for f in fams)


def test_the_text_is_what_prometheus_clients_encoder_writes_of_the_same_samples() -> None:
    text = render(demo_frame())
    fams = list(text_string_to_metric_families(text.decode()))

    class Fixed:
        def collect(self):  # type: ignore[no-untyped-def]
            return fams

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Fixed())  # type: ignore[arg-type]
    assert parse(generate_latest(registry)) == parse(text)


def test_gpu_labels_mig_instances_and_recorded_jobs() -> None:
    samples = parse(render(demo_frame()))
    util = samples["DCGM_FI_DEV_GPU_UTIL"]
    first = next(s for s in util if s.labels["Hostname"] == "node01" and s.labels["gpu"] == "0")
    assert set(first.labels) >= {"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname"}
    assert first.labels["device"] == "nvidia0" and first.labels["modelName"] == "NVIDIA A100-SXM4-40GB"
    # MIG GPUs report no utilization (N/A in the demo, as NVML does): no sample, not 0
    assert not [s for s in util if s.labels["Hostname"] in ("node02", "node03")]
    used = samples["DCGM_FI_DEV_FB_USED"]
    instances = [s for s in used if "GPU_I_ID" in s.labels]
    assert {s.labels["GPU_I_PROFILE"] for s in instances} >= {"3g.20gb", "2g.10gb", "1g.5gb", "3g.40gb", "4g.40gb"}
    # a recorded job holding a MIG instance: bob's 48217 on node02 GPU 0, GI 7 (the demo's events say so)
    held = [s for s in instances if s.labels.get("hpc_job")]
    assert held and all(s.labels.get("hpc_user") for s in held)
    whole = [s for s in util if s.labels.get("hpc_job") == "48212"]  # the 2-GPU torchrun job on GPUs 2 and 3
    assert sorted(s.labels["gpu"] for s in whole) == ["2", "3"] and whole[0].labels["hpc_user"] == "bob"


def test_mps_shares_thread_percentages_and_mig_room() -> None:
    samples = parse(render(demo_frame()))
    shares = samples["gputui_mps_client_thread_percent"]
    assert {int(s.value) for s in shares} <= {25, 50, 100} and all(s.labels.get("pid") for s in shares)
    gpu1 = [s for s in shares if s.labels["Hostname"] == "node04" and s.labels["gpu"] == "1"]
    total = next(s for s in samples["gputui_mps_thread_percent"] if s.labels["gpu"] == "1")
    assert total.value == sum(s.value for s in gpu1) == 150  # the demo's GPU 1 clients add up to 150 %
    largest = {(s.labels["Hostname"], s.labels["gpu"]): s for s in samples["gputui_mig_largest_free_profile"]}
    assert largest[("node02", "1")].labels["profile"] == "7g.40gb" and largest[("node02", "1")].value == 7
    assert largest[("node02", "0")].value == 0 and "profile" not in largest[("node02", "0")].labels


def test_a_gpu_without_values_gives_no_samples_and_a_lost_gpu_says_so() -> None:
    bare = GpuSnapshot(0)
    lost = GpuSnapshot(1, uuid="GPU-x", utilization_gpu=99, lost=True)
    snap = ClusterSnapshot(T0, (NodeSnapshot("n1", (bare, lost)),))
    samples = parse(render(Frame(snap, Attribution(), T0)))
    assert not any(name.startswith("DCGM_") and s for name, s in samples.items())
    assert {s.labels["gpu"]: s.value for s in samples["gputui_gpu_lost"]} == {"0": 0, "1": 1}
    labels = samples["gputui_gpu_lost"][0].labels
    assert "UUID" not in labels and "modelName" not in labels  # unknown: absent, never an empty value


def test_queue_jobs_label_whole_gpus_mig_instances_and_mps_shares(svc: JobService) -> None:
    whole = svc.submit("--gpus=1 -J train", ["python", "train.py"])
    mig = svc.submit("--gres=gpu:3g.20gb:1 -J eval", ["python", "eval.py"])
    mps = svc.submit("--gres=mps:40", ["python", "serve.py"])
    waiting = svc.submit("--gpus=3", ["python", "big.py"])  # GPU 0 is taken: waits
    feed = ExportFeed(ListSource([machine(T0 + 1)]), svc)
    samples = parse(render(feed.frame()))
    by_job: dict[str, set[tuple[str, str | None]]] = {}
    for s in samples["DCGM_FI_DEV_FB_USED"]:
        if "hpc_job" in s.labels:
            by_job.setdefault(s.labels["hpc_job"], set()).add((s.labels["gpu"], s.labels.get("GPU_I_PROFILE")))
    assert by_job[str(whole.id)] == {("0", None)}
    assert by_job[str(mig.id)] == {("2", "3g.20gb")}
    assert by_job[str(mps.id)] == {("3", None)}
    assert str(waiting.id) not in by_job
    named = next(s for s in samples["DCGM_FI_DEV_FB_USED"] if s.labels.get("hpc_job") == str(whole.id))
    assert named.labels["hpc_job_name"] == "train" and named.labels["hpc_user"] == "alice"
    jobs = {(s.labels["state"], s.labels["kind"], s.labels.get("reason")): s.value for s in samples["gputui_jobs"]}
    assert jobs[("running", "node", None)] == 1 and jobs[("running", "MIG", None)] == 1  # the jobs view's words
    assert jobs[("running", "MPS", None)] == 1
    pending = [k for k in jobs if k[0] == "pending"]
    assert len(pending) == 1 and pending[0][2]  # with Slurm's reason word
    assert samples["gputui_job_pending_wait_seconds_max"][0].value >= 0


def test_allocated_idle_gpus(svc: JobService) -> None:
    job = svc.submit("--gpus=1", ["python", "train.py"])
    frame = ExportFeed(ListSource([machine(T0 + 1)]), svc).frame()
    samples = parse(render(frame))
    held = [s for s in samples["gputui_gpu_allocated_idle"] if s.labels.get("hpc_job") == str(job.id)]
    assert len(held) == 1
    util = frame.snapshot.nodes[0].gpus[int(held[0].labels["gpu"])].utilization_gpu  # the simulated job's load
    assert util is not None and held[0].value == (1 if util < 5 else 0)
    # a job on a GPU at 0 %: idle; a GPU nobody holds: no sample
    snap = machine(T0)
    att = Attribution(gpu={("testnode", 1): [Holder("9", "sleepy", "bob")]})
    samples = parse(render(Frame(snap, att, T0)))
    assert [(s.labels["gpu"], s.value) for s in samples["gputui_gpu_allocated_idle"]] == [("1", 1)]
    assert samples["gputui_gpus_allocated_idle"][0].value == 1


@given(st.text(min_size=1, max_size=40), st.text(max_size=40))
def test_any_job_name_and_user_reach_the_labels_sanitised_and_parse_back(name: str, user: str) -> None:
    snap = ClusterSnapshot(T0, (NodeSnapshot('n"1\\', (GpuSnapshot(0, utilization_gpu=5),)),))
    att = Attribution(gpu={('n"1\\', 0): [Holder("7", sanitise(name), sanitise(user) or None)]})
    s = parse(render(Frame(snap, att, T0)))["DCGM_FI_DEV_GPU_UTIL"][0]
    assert s.labels["hpc_job_name"] == sanitise(name) and s.labels.get("hpc_user") == (sanitise(user) or None)
    assert s.labels["Hostname"] == 'n"1\\'


@pytest.mark.parametrize(
    ("layout", "largest", "free_compute", "fragmentation"),
    [
        ((), "7g.40gb", 7, 0.0),
        ((("1g.5gb", 0),), "3g.20gb", 6, 0.5),  # slot 0 taken: 4g.20gb (only at 0) no longer fits
        ((("4g.20gb", 0), ("2g.10gb", 4)), "1g.10gb", 1, 0.0),  # slots 6-7 free: the larger 1g fits
        ((("3g.20gb", 4), ("3g.20gb", 0)), None, 1, 1.0),  # every memory slot taken: the 7th compute slice is stranded
        ((("4g.20gb", 0), ("3g.20gb", 4)), None, 0, None),
    ],
)
def test_mig_room_of_an_a100_40gb(layout: tuple, largest: str | None, free_compute: int,
                                  fragmentation: float | None) -> None:  # fmt: skip
    from gputui.core.mig_profiles import model_for
    from gputui.core.model import GpuInstance
    from gputui.export.mig_room import mig_room

    model = model_for("NVIDIA A100-SXM4-40GB")
    assert model is not None
    gis = []
    for i, (name, start) in enumerate(layout):
        p = model.profile(name)
        assert p is not None
        gis.append(GpuInstance(i + 1, name, p.gi_profile_id, start, dict(p.placements)[start]))
    room = mig_room(GpuSnapshot(0, name="NVIDIA A100-SXM4-40GB", mig_mode_current=True, gpu_instances=tuple(gis)))
    assert room is not None
    assert (room.largest.name if room.largest else None) == largest
    assert room.free_compute_slices == free_compute and room.fragmentation == fragmentation
