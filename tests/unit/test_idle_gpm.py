"""The idle radar judges MIG instances from their GPM activity and MPS clients from per-process SM utilisation:
an idle instance or client on a busy GPU is idle, not unknown; one without a figure stays unknown."""

from __future__ import annotations

from conftest import FIXTURES

from gputui.core.idle import Holder, IdleRadar, UnitKey
from gputui.core.model import (
    Activity,
    ClusterSnapshot,
    GpuInstance,
    GpuSnapshot,
    MpsClient,
    MpsDaemon,
    NodeSnapshot,
    ProcessInfo,
)
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml

BOB = Holder("7", "bob", "serve", None, "queue", (101,))
ALICE = Holder("8", "alice", "train", None, "queue", (102,))
GI1, GI2, GI3 = (UnitKey("n1", 0, "mig", str(k)) for k in (1, 2, 3))


def mig_frame(t: float, sm: tuple[int | None, int | None, int | None]) -> ClusterSnapshot:
    gis = tuple(
        GpuInstance(k + 1, "3g.40gb" if k < 2 else "1g.10gb", memory_used_mib=9000,
                    activity=None if v is None else Activity(v, v // 2, v // 3, 0))
        for k, v in enumerate(sm)
    )  # fmt: skip
    gpu = GpuSnapshot(0, name="NVIDIA H100 80GB HBM3", mig_mode_current=True, gpu_instances=gis)
    return ClusterSnapshot(t, (NodeSnapshot("n1", (gpu,)),))


def test_an_idle_instance_on_a_busy_mig_gpu_is_idle_and_one_without_gpm_stays_unknown() -> None:
    radar = IdleRadar(window_s=600)
    holds = {GI1: BOB, GI2: ALICE, GI3: Holder("9", "carol", None, None, "queue")}
    for i in range(12):
        res = radar.step(mig_frame(i * 60.0, (i % 3, 95, None)), holds)
    (idle,) = res.idle
    assert (idle.unit, idle.holder.job_id, idle.basis, idle.util_max, idle.memory_mib) == (
        "0 GI 1",
        "7",
        "gpm",
        2,
        9000,
    )
    assert [r.unit for r in res.unknown] == ["0 GI 3"]  # no GPM figure: unknown, never idle
    assert res.held == 3


def test_a_busy_minute_of_the_instance_itself_starts_its_window_again() -> None:
    radar = IdleRadar(window_s=600)
    sms = [0] * 5 + [30] + [0] * 10
    flagged = [bool(radar.step(mig_frame(i * 60.0, (v, 95, 95)), {GI1: BOB}).idle) for i, v in enumerate(sms)]
    assert flagged == [False] * 16  # ten quiet minutes after the busy one are needed
    assert bool(radar.step(mig_frame(16 * 60.0, (0, 95, 95)), {GI1: BOB}).idle)


def mps_frame(t: float, gpu_util: int, sm: dict[int, int | None]) -> ClusterSnapshot:
    clients = tuple(MpsClient(pid, 50, 2000, sm_util=v) for pid, v in sm.items())
    gpu = GpuSnapshot(0, utilization_gpu=gpu_util, mps=MpsDaemon(True, 10, 11, clients=clients))
    return ClusterSnapshot(t, (NodeSnapshot("n1", (gpu,)),))


def test_an_idle_mps_client_on_a_busy_gpu_is_idle_where_per_process_utilisation_exists() -> None:
    bob_key, alice_key = UnitKey("n1", 0, "mps", "7"), UnitKey("n1", 0, "mps", "8")
    radar = IdleRadar(window_s=600)
    for i in range(12):
        res = radar.step(mps_frame(i * 60.0, 85, {101: 0, 102: 80}), {bob_key: BOB, alice_key: ALICE})
    (idle,) = res.idle
    assert (idle.holder.job_id, idle.basis, idle.memory_mib) == ("7", "process", 2000)
    assert not res.unknown
    radar = IdleRadar(window_s=600)  # without the per-process figure, a busy GPU proves nothing
    for i in range(12):
        res = radar.step(mps_frame(i * 60.0, 85, {101: None, 102: 80}), {bob_key: BOB, alice_key: ALICE})
    assert not res.idle and [r.holder.job_id for r in res.unknown] == ["7"]


class Clock:
    t = 5000.0

    def __call__(self) -> float:
        return self.t


def test_live_fake_nvml_feeds_the_radar_per_instance_and_per_client() -> None:
    """H100 in MIG mode (GPM) and an A100 under MPS with per-process samples, polled once a minute."""
    busy = Activity(97, 60, 40, 70)
    gis = (GpuInstance(1, "3g.40gb", memory_total_mib=40448, memory_used_mib=9000, activity=Activity(1, 0, 0, 0)),
           GpuInstance(2, "3g.40gb", memory_total_mib=40448, memory_used_mib=30000, activity=busy))  # fmt: skip
    h100 = GpuSnapshot(0, "GPU-h", "NVIDIA H100 80GB HBM3", mig_mode_current=True, mig_mode_pending=True,
                       memory_total_mib=81559, memory_used_mib=39000, gpu_instances=gis)  # fmt: skip
    clients = (MpsClient(201, 50, 3000, sm_util=0), MpsClient(202, 50, 3000, sm_util=70))
    a100 = GpuSnapshot(1, "GPU-a", "NVIDIA A100-SXM4-80GB", memory_total_mib=81920, memory_used_mib=6000,
                       utilization_gpu=72, mig_mode_current=False, mps=MpsDaemon(True, clients=clients),
                       processes=tuple(ProcessInfo(c.pid, "M+C", 3000) for c in clients))  # fmt: skip
    clock = Clock()
    fake = FakeNvml(NodeSnapshot("n1", (h100, a100)), clock=clock)
    src = NvmlSource(fake, node_name="n1", proc_root="/nonexistent", users=lambda uid: None, clock=clock)
    holds = {
        UnitKey("n1", 0, "mig", "1"): BOB,
        UnitKey("n1", 0, "mig", "2"): ALICE,
        UnitKey("n1", 1, "mps", "20"): Holder("20", "dave", None, None, "queue", (201,)),
        UnitKey("n1", 1, "mps", "21"): Holder("21", "erin", None, None, "queue", (202,)),
    }
    radar = IdleRadar(window_s=600)
    for _ in range(13):
        res = radar.step(src.poll(), holds)
        clock.t += 60
    assert sorted((r.unit, r.holder.job_id, r.basis) for r in res.idle) == [
        ("0 GI 1", "7", "gpm"),
        ("1 MPS", "20", "process"),
    ]
    assert not res.unknown


def test_the_gpm_fixture_is_its_generators_output(tmp_path) -> None:
    from gputui.synth.gpm_demo import write_gpm_demo

    out = tmp_path / "h100-mig-gpm.gtrec"
    write_gpm_demo(out)
    assert out.read_bytes() == (FIXTURES / "recording" / "h100-mig-gpm.gtrec").read_bytes(), (
        "regenerate with python -m gputui.synth.gpm_demo"
    )
