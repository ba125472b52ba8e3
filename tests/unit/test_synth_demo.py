"""The bundled demo recording: what it contains, that every frame is a legal layout, and that it is reproducible."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import FIXTURES

from gputui.core.mig_profiles import model_for
from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot
from gputui.resources import DEMO_RECORDING
from gputui.sources.recording import RecordingReader
from gputui.synth import validate_gpu_layout
from gputui.synth.demo import DEMO_SOURCE, main, write_demo

DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def reader() -> Iterator[RecordingReader]:
    r = RecordingReader(DEMO)
    yield r
    r.close()


@pytest.fixture(scope="module")
def frames(reader: RecordingReader) -> list[ClusterSnapshot]:
    return [reader.frame(i) for i in range(reader.frame_count)]


def _gpu(frame: ClusterSnapshot, node: str, index: int) -> GpuSnapshot:
    return frame.node(node).gpus[index]


def _layout(gpu: GpuSnapshot) -> list[tuple[str | None, int | None]]:
    return sorted((gi.profile, gi.placement_start) for gi in gpu.gpu_instances)


def test_the_resource_path_names_this_file() -> None:
    assert Path(DEMO_RECORDING) == DEMO.relative_to(FIXTURES.parent)


def test_small_ten_minutes_at_one_hertz(reader: RecordingReader, frames: list[ClusterSnapshot]) -> None:
    assert DEMO.stat().st_size < 1_000_000
    assert reader.meta["synthetic"] is True
    assert reader.frame_count >= 600
    times = [f.timestamp for f in frames]
    assert times[0] == START
    assert all(b - a == 1.0 for a, b in zip(times, times[1:], strict=False))
    assert {f.source for f in frames} == {DEMO_SOURCE}
    assert [n.name for n in frames[0].nodes] == ["node01", "node02", "node03", "node04"]


def test_every_frame_is_a_legal_layout(frames: list[ClusterSnapshot]) -> None:
    problems = [
        (i, node.name, p)
        for i, f in enumerate(frames)
        for node in f.nodes
        for g in node.gpus
        for p in validate_gpu_layout(g)
    ]
    assert problems == []


def test_node01_whole_gpus(frames: list[ClusterSnapshot], reader: RecordingReader) -> None:
    gpus = frames[0].node("node01").gpus
    assert [g.name for g in gpus] == ["NVIDIA A100-SXM4-40GB"] * 4
    assert not any(g.mig_mode_current for g in gpus)
    two_gpu = [e for e in reader.events if e.node == "node01" and e.gpus == (2, 3)]
    assert [e.kind for e in two_gpu] == ["job_submitted", "job_started", "job_ended"]
    running = frames[100].node("node01")
    assert {p.pid for p in running.gpus[2].processes}.isdisjoint({p.pid for p in running.gpus[3].processes})
    assert running.gpus[2].processes[0].command == running.gpus[3].processes[0].command
    # GPU 1 goes idle between two jobs and GPU 3 once the 2-GPU job is over
    assert _gpu(frames[230], "node01", 1).processes == ()
    assert _gpu(frames[590], "node01", 3).processes == ()


def test_node02_mixed_mig_layout(frames: list[ClusterSnapshot]) -> None:
    for f in (frames[0], frames[-1]):
        g0, g1 = f.node("node02").gpus
        assert g0.name == g1.name == "NVIDIA A100-SXM4-40GB"
        assert _layout(g0) == [("1g.5gb", 0), ("1g.5gb", 1), ("2g.10gb", 2), ("3g.20gb", 4)]
        assert g1.mig_mode_current and g1.gpu_instances == ()
    model = model_for("NVIDIA A100-SXM4-40GB")
    assert model is not None
    g0 = _gpu(frames[100], "node02", 0)
    for gi in g0.gpu_instances:
        assert gi.memory_total_mib == model.profile(gi.profile or "").memory_mib_estimate  # type: ignore[union-attr]
    in_mig = {(p.gi_id, p.ci_id) for p in g0.processes}
    assert len(in_mig) >= 3 and None not in {gi for gi, _ in in_mig}


def test_node03_split_gpu_instance(frames: list[ClusterSnapshot]) -> None:
    g0, g1 = frames[100].node("node03").gpus
    assert g0.name == "NVIDIA H100 80GB HBM3"
    assert _layout(g0) == [("1g.10gb", 0), ("1g.10gb", 1), ("2g.20gb", 2), ("3g.40gb", 4)]
    assert _layout(g1) == [("3g.40gb", 4), ("4g.40gb", 0)]
    split = [gi for gi in g0.gpu_instances if len(gi.compute_instances) > 1]
    assert len(split) == 1 and split[0].profile == "3g.40gb" and split[0].sm_count == 60
    cis = {ci.profile: ci.sm_count for ci in split[0].compute_instances}
    assert cis == {"2c.3g.40gb": 32, "1c.3g.40gb": 16}
    # both compute instances of the split GI run a process of their own
    assert {p.ci_id for p in g0.processes if p.gi_id == split[0].gi_id} == {0, 1}


def test_node04_mps_clients(frames: list[ClusterSnapshot]) -> None:
    assert _gpu(frames[10], "node04", 0).mps is not None
    assert _gpu(frames[0], "node04", 0).mps.running  # type: ignore[union-attr]  # up from the first frame
    assert _gpu(frames[421], "node04", 0).mps.running is False  # type: ignore[union-attr]  # restarting
    g0, g1 = frames[100].node("node04").gpus
    assert g0.mps is not None and g1.mps is not None and g0.mps.running
    assert g0.mps.control_pid == g1.mps.control_pid and g0.mps.server_pid == g1.mps.server_pid
    assert g0.mps.pipe_directory == "/tmp/nvidia-mps" and g0.mps.log_directory == "/var/log/nvidia-mps"
    percents = [c.active_thread_percentage for g in (g0, g1) for c in g.mps.clients]  # type: ignore[union-attr]
    assert len(set(percents)) >= 3
    assert sum(c.active_thread_percentage or 0 for c in g1.mps.clients) > 100
    for g in (g0, g1):
        types = {p.pid: p.type for p in g.processes}
        assert types[g.mps.server_pid] == "C"  # type: ignore[index,union-attr]
        assert all(types[c.pid] == "M+C" for c in g.mps.clients)  # type: ignore[union-attr]
        server = next(p for p in g.processes if p.pid == g.mps.server_pid)  # type: ignore[union-attr]
        assert server.command == "nvidia-cuda-mps-server"
    # down during the restart, then up again under a new daemon with new clients
    assert _gpu(frames[422], "node04", 0).mps.running is False  # type: ignore[union-attr]
    after = _gpu(frames[500], "node04", 0).mps
    assert after is not None and after.running and after.control_pid != g0.mps.control_pid
    assert after.clients and {c.pid for c in after.clients}.isdisjoint({c.pid for c in g0.mps.clients})


def _daemon_story(events: list[Event]) -> list[tuple[float, str]]:
    """(seconds, kind) of node04's MPS events and the failures they cause."""
    kinds = ("mps_started", "mps_stopped", "job_failed")
    return [(e.timestamp - START, e.kind) for e in events if e.node == "node04" and e.kind in kinds]


def test_events_in_order(reader: RecordingReader) -> None:
    events = reader.events
    assert [e.timestamp for e in events] == sorted(e.timestamp for e in events)
    mps = _daemon_story(events)
    stop = mps.index((420.0, "mps_stopped"))
    assert stop == 0  # the daemon is up from the first frame: its first event is the restart
    failed = mps[stop + 1 : -1]
    assert len(failed) >= 3 and all(k == "job_failed" for _, k in failed)
    assert mps[-1] == (424.0, "mps_started")
    for e in events:
        if e.kind == "job_failed":
            assert "MPS daemon restarted" in e.message and e.job_id
    # every job's own events come in the order submitted -> started -> ended or failed
    rank = {"job_submitted": 0, "job_started": 1, "job_ended": 2, "job_failed": 2}
    by_job: dict[str, list[int]] = {}
    for e in events:
        if e.job_id:
            assert e.node and e.gpus and e.message
            by_job.setdefault(e.job_id, []).append(rank[e.kind])
    assert all(seq == sorted(seq) and len(set(seq)) == len(seq) for seq in by_job.values())
    assert sum(1 for seq in by_job.values() if seq == [0, 1, 2]) >= 5
    restarted = [e for e in events if e.node == "node04" and e.kind == "job_started" and e.timestamp > START + 424]
    assert len(restarted) >= 3


def test_utilization_memory_and_power_move(frames: list[ClusterSnapshot]) -> None:
    utils = [_gpu(f, "node01", 0).utilization_gpu for f in frames]
    assert len(set(utils)) > 20
    assert sum(a != b for a, b in zip(utils, utils[1:], strict=False)) > len(utils) // 2
    powers = {_gpu(f, "node03", 1).power_draw_w for f in frames}
    assert len(powers) > 100
    mem = [_gpu(f, "node01", 1).memory_used_mib or 0 for f in frames]
    assert len(set(mem)) > 5 and min(mem) == 0
    temps = [_gpu(f, "node01", 2).temperature_c or 0 for f in frames]
    assert max(temps) - min(temps) >= 10  # heats up under the 2-GPU job, cools afterwards


def test_memory_used_is_processes_plus_overhead(frames: list[ClusterSnapshot]) -> None:
    for f in frames[::37]:
        for node in f.nodes:
            for g in node.gpus:
                procs = sum(p.used_memory_mib or 0 for p in g.processes)
                if g.mig_mode_current:
                    assert g.memory_used_mib == sum(gi.memory_used_mib or 0 for gi in g.gpu_instances)
                    for gi in g.gpu_instances:
                        inside = sum(p.used_memory_mib or 0 for p in g.processes if p.gi_id == gi.gi_id)
                        assert 0 < (gi.memory_used_mib or 0) - inside <= 100
                else:
                    assert g.memory_used_mib is not None and 0 <= g.memory_used_mib - procs <= 8
                    assert (g.memory_used_mib > 0) == bool(g.processes)


def test_regenerating_gives_the_committed_bytes(tmp_path: Path) -> None:
    out = tmp_path / "demo.gtrec"
    frames, events = write_demo(out)
    assert frames >= 600 and events > 20
    assert out.read_bytes() == DEMO.read_bytes(), "fixtures/demo drifted: run `python -m gputui.synth.demo`"
    assert main([str(out)]) == 0  # overwriting is a fresh write, not an append
    assert out.read_bytes() == DEMO.read_bytes()
