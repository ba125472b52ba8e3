"""Hand-made cluster snapshots for the UI tests, and checks that they say what the tests assume."""

from __future__ import annotations

from gputui.core.model import (
    ClusterSnapshot,
    ComputeInstance,
    Event,
    GpuInstance,
    GpuSnapshot,
    MpsClient,
    MpsDaemon,
    NodeSnapshot,
    ProcessInfo,
)
from gputui.sources.base import MemoryFrames
from gputui.sources.replay import ReplaySource

T0 = 1_714_564_800.0  # 2024-05-01 12:00:00 UTC
A100 = "NVIDIA A100-SXM4-40GB"


def mig_gpu(index: int = 1) -> GpuSnapshot:
    """A100 split 3g.20gb@0 (two CIs) + 2g.10gb@4 + 1g.5gb@6, slot 7 free; a job on GI 1 and one on GI 5."""
    gis = (
        GpuInstance(
            1,
            "3g.20gb",
            9,
            0,
            4,
            19968,
            9000,
            42,
            (
                ComputeInstance(0, "1c.3g.20gb", 14, "MIG-aaaa"),
                ComputeInstance(1, "2c.3g.20gb", 28, "MIG-bbbb"),
            ),
        ),
        GpuInstance(5, "2g.10gb", 14, 4, 2, 9851, 0, 28, (ComputeInstance(0, "2g.10gb", 28, "MIG-cccc"),)),
        GpuInstance(13, "1g.5gb", 19, 6, 1, 4864, 1200, 14, (ComputeInstance(0, "1g.5gb", 14, "MIG-dddd"),)),
    )
    procs = (
        ProcessInfo(3101, "C", 9000, "carol", "python finetune.py", gi_id=1, ci_id=0),
        ProcessInfo(3102, "C", 1200, "dave", "./bench", gi_id=13, ci_id=0),
    )
    return GpuSnapshot(
        index,
        uuid="GPU-mig",
        name=A100,
        memory_total_mib=40960,
        memory_used_mib=10200,
        utilization_gpu=None,
        temperature_c=41,
        power_draw_w=120.0,
        power_limit_w=400.0,
        compute_mode="Default",
        mig_mode_current=True,
        mig_mode_pending=True,
        gpu_instances=gis,
        processes=procs,
    )


def mps_gpu(index: int = 2, client_mem: tuple[int, int] = (12000, 20000)) -> GpuSnapshot:
    """MPS daemon up with two clients at 60 % + 70 % threads; the driver lists only the server."""
    mps = MpsDaemon(
        True,
        control_pid=900,
        server_pid=901,
        pipe_directory="/tmp/nvidia-mps",
        log_directory="/var/log/nvidia-mps",
        clients=(
            MpsClient(4001, 60, client_mem[0], "erin", "python serve.py"),
            MpsClient(4002, 70, client_mem[1], "frank", "python train.py"),
        ),
    )
    return GpuSnapshot(
        index,
        name=A100,
        memory_total_mib=40960,
        memory_used_mib=32500,
        utilization_gpu=88,
        temperature_c=77,
        power_draw_w=390.0,
        power_limit_w=400.0,
        compute_mode="Exclusive_Process",
        mig_mode_current=False,
        mps=mps,
        processes=(ProcessInfo(901, "C", 32500, "root", "nvidia-cuda-mps-server"),),
    )


def cluster(t: float = T0, util: int = 57, lost: bool = True) -> ClusterSnapshot:
    """Two nodes, six GPUs: busy, MIG, MPS, N/A-heavy, lost (or healthy), and free."""
    a = NodeSnapshot(
        "node-a",
        (
            GpuSnapshot(
                0,
                uuid="GPU-0",
                name=A100,
                memory_total_mib=40960,
                memory_used_mib=20480,
                utilization_gpu=util,
                temperature_c=54,
                power_draw_w=250.0,
                power_limit_w=400.0,
                compute_mode="Default",
                mig_mode_current=False,
                processes=(ProcessInfo(2001, "C", 20000, "alice", "python a.py"),),
            ),
            mig_gpu(1),
            mps_gpu(2),
            GpuSnapshot(3, name=None, memory_total_mib=None, memory_used_mib=None),
        ),
        driver_version="550.54.15",
        cuda_version="12.4",
    )
    b = NodeSnapshot(
        "node-b",
        (
            GpuSnapshot(
                0, name="NVIDIA H100 80GB HBM3", lost=lost, memory_total_mib=81559, utilization_gpu=None if lost else 10
            ),
            GpuSnapshot(
                1,
                name="NVIDIA H100 80GB HBM3",
                memory_total_mib=81559,
                memory_used_mib=0,
                utilization_gpu=0,
                temperature_c=30,
                power_draw_w=70.0,
                power_limit_w=700.0,
                compute_mode="Default",
            ),
        ),
    )
    return ClusterSnapshot(t, (a, b), source="test")


def frames(n: int = 181, step: float = 1.0) -> list[ClusterSnapshot]:
    """``n`` frames one ``step`` apart; GPU 0's utilization encodes the frame number (i % 101)."""
    return [cluster(T0 + i * step, util=i % 101) for i in range(n)]


EVENTS = (
    Event(T0 + 2, "job_started", "train", node="node-a", gpus=(0,), job_id="j-1"),
    Event(T0 + 65, "mps_stopped", "maintenance", node="node-a", gpus=(2,)),
)


def replay(n: int = 181, step: float = 1.0) -> ReplaySource:
    return ReplaySource(MemoryFrames(frames(n, step), EVENTS), "test recording")


def test_mig_sample_is_consistent() -> None:
    gpu = mig_gpu()
    spans = [(g.placement_start, g.placement_size) for g in gpu.gpu_instances]
    assert spans == [(0, 4), (4, 2), (6, 1)]
    assert {p.gi_id for p in gpu.processes} <= {g.gi_id for g in gpu.gpu_instances}


def test_frames_encode_their_number() -> None:
    fs = frames(5)
    assert [f.nodes[0].gpus[0].utilization_gpu for f in fs] == [0, 1, 2, 3, 4]
    assert fs[4].timestamp - fs[0].timestamp == 4.0
