"""MIG layouts of the synthetic generator: place() against the real tables, and validate_gpu_layout()."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gputui.core.mig_profiles import load_models, model_for
from gputui.core.model import GpuSnapshot, ProcessInfo
from gputui.synth import MigLayoutError, build_gpu_instances, place, validate_gpu_layout
from gputui.synth.mig_layout import ci_sm_count

A100_40 = load_models()["A100-40GB"]
H100 = load_models()["H100-80GB"]


def _uuid(gi: int, ci: int) -> str:
    return f"MIG-{gi:08x}-0000-0000-0000-{ci:012x}"


def _gpu(name: str, layout: list, processes: tuple[ProcessInfo, ...] = ()) -> GpuSnapshot:
    model = model_for(name)
    assert model is not None
    gis = build_gpu_instances(model, layout, _uuid)
    return GpuSnapshot(
        index=0, name=name, mig_mode_current=True, mig_mode_pending=True, gpu_instances=gis, processes=processes
    )


def _starts(placed: list) -> list[tuple[str, int]]:
    return [(p.name, start) for p, start in placed]


def test_mixed_a100_layout_gets_legal_disjoint_starts() -> None:
    placed = place(A100_40, ["3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"])
    # largest first at its highest free start, as the driver does: the layout of the MIG user guide's example
    assert _starts(placed) == [("3g.20gb", 4), ("2g.10gb", 2), ("1g.5gb", 1), ("1g.5gb", 0)]
    masks = [p.placement_mask(s) for p, s in placed]
    assert sum(masks) == masks[0] | masks[1] | masks[2] | masks[3]  # no bit twice


def test_4g_plus_3g_is_legal_on_a100_40gb() -> None:
    # the table puts 4g.20gb at slot 0 only and 3g.20gb at 0 or 4: together they fill the GPU
    assert _starts(place(A100_40, ["3g.20gb", "4g.20gb"])) == [("3g.20gb", 4), ("4g.20gb", 0)]


def test_h100_split_layout_places() -> None:
    placed = place(H100, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"])
    assert sorted(_starts(placed)) == [("1g.10gb", 0), ("1g.10gb", 1), ("2g.20gb", 2), ("3g.40gb", 4)]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["2g.10gb"] * 4, "at most 3 x 2g.10gb"),
        (["4g.20gb", "4g.20gb"], "at most 1 x 4g.20gb"),
        (["1g.5gb"] * 8, "at most 7 x 1g.5gb"),
        (["7g.40gb", "1g.5gb"], "needs 8 compute slices"),
        (["3g.20gb", "3g.20gb", "1g.5gb"], "does not fit"),
        (["4g.20gb", "1g.10gb", "1g.10gb", "1g.5gb"], "does not fit"),
        (["4g.20gb", "2g.10gb", "2g.10gb"], "needs 8 compute slices"),
        (["1g.10gb"] * 4 + ["1g.5gb"], "does not fit"),
        (["3g.40gb"], "has no MIG profile '3g.40gb'"),
        (["1c.3g.20gb"], "is a compute-instance profile"),
    ],
)
def test_place_refuses_illegal_layouts(names: list[str], message: str) -> None:
    with pytest.raises(MigLayoutError, match=message.replace(".", r"\.")) as err:
        place(A100_40, names)
    assert "\n" not in str(err.value)  # one line, for the user


def _fits_by_brute_force(model, names: list[str]) -> bool:  # type: ignore[no-untyped-def]
    profiles = [model.profile(n) for n in names]
    if sum(p.compute_slices for p in profiles) > model.compute_slices:
        return False
    for starts in itertools.product(*[[s for s, _ in p.placements] for p in profiles]):
        used = 0
        for p, s in zip(profiles, starts, strict=True):
            m = p.placement_mask(s)
            if m & used:
                break
            used |= m
        else:
            return True
    return False


@given(
    st.sampled_from(sorted(load_models())).flatmap(
        lambda key: st.tuples(
            st.just(key),
            st.lists(st.sampled_from([p.name for p in load_models()[key].profiles]), min_size=1, max_size=4),
        )
    )
)
def test_place_is_sound_and_complete(case: tuple[str, list[str]]) -> None:
    key, names = case
    model = load_models()[key]
    counts_ok = all(names.count(n) <= model.profile(n).max_instances for n in set(names))  # type: ignore[union-attr]
    possible = counts_ok and _fits_by_brute_force(model, names)
    try:
        placed = place(model, names)
    except MigLayoutError:
        assert not possible
        return
    assert possible
    used = 0
    for p, start in placed:
        assert start in dict(p.placements)
        assert not p.placement_mask(start) & used
        used |= p.placement_mask(start)


def test_built_instances_carry_table_values() -> None:
    gpu = _gpu("NVIDIA H100 80GB HBM3", [("3g.40gb", (2, 1)), "2g.20gb", "1g.10gb", "1g.10gb"])
    assert validate_gpu_layout(gpu) == []
    three = next(gi for gi in gpu.gpu_instances if gi.profile == "3g.40gb")
    assert (three.memory_total_mib, three.sm_count, three.profile_id) == (40448, 60, 9)
    assert [(ci.profile, ci.sm_count) for ci in three.compute_instances] == [("2c.3g.40gb", 32), ("1c.3g.40gb", 16)]
    assert len({gi.gi_id for gi in gpu.gpu_instances}) == 4
    devices = [ci.mig_device_index for gi in gpu.gpu_instances for ci in gi.compute_instances]
    assert devices == list(range(5))


def test_ci_sms_come_from_the_table() -> None:
    a3 = A100_40.profile("3g.20gb")
    assert a3 is not None
    assert [ci_sm_count(A100_40, a3, c) for c in (1, 2, 3)] == [14, 28, 42]


def test_compute_instances_beyond_the_gi_are_refused() -> None:
    with pytest.raises(MigLayoutError, match="do not fit in 3g.40gb"):
        _gpu("NVIDIA H100 80GB HBM3", [("3g.40gb", (2, 2))])
    assert validate_gpu_layout(_gpu("NVIDIA A100-SXM4-40GB", [("3g.20gb", (1, 1, 1))])) == []


def test_validate_finds_every_kind_of_breakage() -> None:
    good = _gpu("NVIDIA A100-SXM4-40GB", ["3g.20gb", "2g.10gb", "1g.5gb"])
    assert validate_gpu_layout(good) == []
    gis = list(good.gpu_instances)
    three = next(i for i, g in enumerate(gis) if g.profile == "3g.20gb")
    two = next(i for i, g in enumerate(gis) if g.profile == "2g.10gb")

    def broken(i: int, **changes: object) -> list[str]:
        bad = list(gis)
        bad[i] = replace(bad[i], **changes)  # type: ignore[arg-type]
        return validate_gpu_layout(replace(good, gpu_instances=tuple(bad)))

    assert any("overlaps" in p for p in broken(two, placement_start=4))
    assert any("cannot start at slot 3" in p for p in broken(two, placement_start=3))
    assert any("the table says 19968" in p for p in broken(three, memory_total_mib=20480))
    assert any("the table says 42" in p for p in broken(three, sm_count=56))
    assert any("no profile '5g.25gb'" in p for p in broken(three, profile="5g.25gb"))
    assert any("profile id 5" in p for p in broken(three, profile_id=5))
    assert any("no profile '1c.3g.20gb'" in p for p in broken(three, profile="1c.3g.20gb"))
    ci = gis[three].compute_instances[0]
    split = (replace(ci, profile="2c.3g.20gb", sm_count=28), replace(ci, ci_id=1, profile="2c.3g.20gb", sm_count=28))
    assert any("more than the GI's 42" in p for p in broken(three, compute_instances=split))
    assert any("not a MIG UUID" in p for p in broken(three, compute_instances=(replace(ci, mig_uuid="GPU-1"),)))
    orphan = replace(good, processes=(ProcessInfo(pid=7, type="C", gi_id=99, ci_id=0),))
    assert any("GI 99 / CI 0, which does not exist" in p for p in validate_gpu_layout(orphan))
    off = replace(good, mig_mode_current=False)
    assert any("while MIG mode is off" in p for p in validate_gpu_layout(off))
    assert validate_gpu_layout(replace(good, name="Tesla T4")) == ["GPU 0: no MIG table for 'Tesla T4'"]
