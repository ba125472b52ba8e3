"""Right-sizing: the smallest unit that would have served each held GPU or MIG instance, as a Slurm request;
and `gputui idle --advise` on the synthetic H100 MIG fixture."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from gputui.cli import main
from gputui.core.idle import Holder, UnitKey
from gputui.core.idle.advice import Sizing
from gputui.core.model import Activity, ClusterSnapshot, GpuInstance, GpuSnapshot, NodeSnapshot

H100 = "NVIDIA H100 80GB HBM3"
JOB = Holder("12", "bob", "serve", None, "queue")
GPM = FIXTURES / "recording" / "h100-mig-gpm.gtrec"


def frames(profile: str | None, sm: list[int | None], mem: int, *, util: bool = False) -> list[ClusterSnapshot]:
    out = []
    for i, v in enumerate(sm):
        act = None if v is None or util else Activity(v, 0, 0, 0)
        if profile is None:
            g = GpuSnapshot(0, name=H100, memory_total_mib=81559, memory_used_mib=mem, mig_mode_current=False,
                            activity=act, utilization_gpu=v if util else None)  # fmt: skip
        else:
            gi = GpuInstance(1, profile, memory_used_mib=mem, activity=act)
            g = GpuSnapshot(0, name=H100, mig_mode_current=True, gpu_instances=(gi,))
        out.append(ClusterSnapshot(60.0 * i, (NodeSnapshot("n", (g,)),)))
    return out


def advise(profile: str | None, sm: list[int | None], mem: int, window: float = 600, **kw: bool):  # type: ignore[no-untyped-def]
    key = UnitKey("n", 0, "mig", "1") if profile else UnitKey("n", 0)
    sizing = Sizing()
    for f in frames(profile, sm, mem, **kw):
        sizing.observe(f, {key: JOB})
    return sizing.advice(window)


@pytest.mark.parametrize(
    ("profile", "peak_sm", "mem", "suggest", "slurm"),
    [
        ("3g.40gb", 10, 9_000, "1g.10gb", "--gres=gpu:1g.10gb:1"),  # the fixture's case
        ("3g.40gb", 30, 9_000, "2g.20gb", "--gres=gpu:2g.20gb:1"),  # 30 % of 3 slices x 1.25: 2 slices
        ("3g.40gb", 10, 15_000, "1g.20gb", "--gres=gpu:1g.20gb:1"),  # memory decides
        ("3g.40gb", 90, 9_000, None, None),  # busy: the right size
        ("1g.10gb", 5, 2_000, None, None),  # nothing smaller exists
        (None, 10, 9_000, "1g.10gb", "--gres=gpu:1g.10gb:1"),  # a whole H100 for a small job (7 x 10 % x 1.25 < 1)
        (None, 12, 9_000, "2g.20gb", "--gres=gpu:2g.20gb:1"),  # 1.05 slices: 2
        (None, 95, 70_000, None, None),
    ],
)
def test_the_smallest_unit_with_headroom(profile, peak_sm, mem, suggest, slurm) -> None:  # type: ignore[no-untyped-def]
    (a,) = advise(profile, [0, 2, peak_sm, 1] * 3, mem)
    assert (a.suggest, a.peak_sm, a.peak_memory_mib) == (suggest, peak_sm, mem)
    if profile is not None or suggest is None and a.mps_percent is None:
        assert a.slurm == slurm


def test_a_whole_gpu_also_gets_an_mps_share_and_utilisation_is_said_to_be_a_bound() -> None:
    (a,) = advise(None, [0, 14, 3] * 4, 9_000, util=True)
    assert (a.basis, a.mps_percent, a.suggest) == ("util", 20, "2g.20gb")


def test_no_advice_without_a_figure_in_every_frame_or_a_full_window() -> None:
    assert advise("3g.40gb", [0, 1, None, 2] * 3, 9_000) == []
    assert advise("3g.40gb", [0, 1, 2], 9_000) == []  # two minutes watched, a ten-minute window


def test_idle_advise_on_the_h100_fixture_recommends_the_smaller_instance(capsys) -> None:
    assert main(["idle", str(GPM), "--advise"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "job 63001" in ln)
    assert "held a 3g.40gb on hopper01 GPU 0 GI 1" in line
    assert "a 1g.10gb instance would have served" in line and "--gres=gpu:1g.10gb:1" in line
    assert "job 63003 (carol) held a 1g.10gb" in out and "the right size" in out
    assert "left 2 compute slices and 29.8 GiB free" in out
    # the 1g.10gb placed inside the 3g.40gb's slots 4-7 where a 2g.20gb can still start (at 4): exact placements
    assert "hopper01 GPU 0: room for 1g.10gb, 1g.20gb, 2g.20gb (now: nothing)" in out
    assert main(["idle", str(GPM), "--advise", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [i["unit_ref"] for i in data["idle"]] == ["1"] and data["idle"][0]["util_basis"] == "gpm"
    assert data["room"] == [{"node": "hopper01", "gpu": 0, "now": [], "then": ["1g.10gb", "1g.20gb", "2g.20gb"]}]
    bob = next(a for a in data["advice"] if a["job"] == "63001")
    assert (bob["held"], bob["suggest"], bob["slurm"], bob["sm_basis"]) == (
        "3g.40gb", "1g.10gb", "--gres=gpu:1g.10gb:1", "gpm")  # fmt: skip
