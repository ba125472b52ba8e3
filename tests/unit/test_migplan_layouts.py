"""MIG layouts from the placement table, and the nvidia-smi command replay that refuses what the driver would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gputui.core.mig_profiles import load_models
from gputui.core.migplan.layouts import Slot, all_layouts, extensions, is_maximal, room, slot, why_invalid
from gputui.core.migplan.smi_commands import LiveInstance, commands
from gputui.core.migplan.smi_replay import ModelGpu, ReplayError, replay

A100 = load_models()["A100-80GB"]
A30 = load_models()["A30-24GB"]


def test_every_enumerated_layout_is_valid_and_distinct():
    layouts = all_layouts(A100)
    assert len(set(layouts)) == len(layouts)
    assert all(why_invalid(A100, lay) is None for lay in layouts)
    assert () in layouts


def test_maximal_layouts_include_nvidia_examples():
    maximal = {tuple(sorted(s.profile for s in lay)) for lay in all_layouts(A100) if is_maximal(A100, lay)}
    # NVIDIA's guide: 3-2-1-1, 2-1-1-1-1-1, 3g+3g, 4g+3g and seven 1g
    assert ("1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb") in maximal
    assert ("1g.10gb",) * 5 + ("2g.20gb",) in maximal
    assert ("3g.40gb", "3g.40gb") in maximal
    assert ("3g.40gb", "4g.40gb") in maximal
    assert ("1g.10gb",) * 7 in maximal
    assert ("7g.80gb",) in maximal


def test_table_rules_are_refused():
    assert "cannot start" in why_invalid(A100, (Slot(7, 1, "1g.10gb"),))
    assert "overlaps" in why_invalid(A100, (slot(A100, "3g.40gb", 4), slot(A100, "1g.10gb", 5)))
    twos = (slot(A100, "1g.10gb+me", 0), slot(A100, "1g.10gb+me", 1))
    assert "more than 1" in why_invalid(A100, twos)
    with pytest.raises(ValueError, match="cannot start at slot 2"):
        slot(A100, "3g.40gb", 2)


def test_room_counts_the_compute_stranded_by_two_3g():
    assert room(A100, 0, 0) == 7
    assert room(A100, 0b11110000, 3) == 4  # 3g at 4 leaves room for a 4g
    assert room(A100, 0b00001111, 3) == 3  # 3g at 0: slots 4-7 hold 3 compute slices at most
    assert room(A100, 0xFF, 6) == 0


def _gpus(layout=(), busy=()) -> dict[int, ModelGpu]:
    g = ModelGpu(A100)
    for k, s in enumerate(layout, start=1):
        g.instances[k] = s
        g.cis[k] = {0}
    g.busy = set(busy)
    return {0: g}


def test_replay_creates_at_placements_and_refuses_overlaps():
    gpus = _gpus()
    replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-cgi", "9:4", "-C"])
    replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-cgi", "5:0", "-C"])
    assert gpus[0].layout() == (slot(A100, "4g.40gb", 0), slot(A100, "3g.40gb", 4))
    with pytest.raises(ReplayError, match="Insufficient Resources"):
        replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-cgi", "19:6", "-C"])
    with pytest.raises(ReplayError, match="without a placement"):
        replay(_gpus(), ["nvidia-smi", "mig", "-i", "0", "-cgi", "19", "-C"])
    with pytest.raises(ReplayError, match="cannot be placed at 7"):
        replay(_gpus(), ["nvidia-smi", "mig", "-i", "0", "-cgi", "19:7", "-C"])
    with pytest.raises(ReplayError, match="no -i"):
        replay(_gpus(), ["nvidia-smi", "mig", "-cgi", "19:0", "-C"])


def test_replay_refuses_destroying_busy_or_ci_holding_instances():
    gpus = _gpus((slot(A100, "3g.40gb", 4),), busy={(1, 0)})
    with pytest.raises(ReplayError, match="still has compute instances"):
        replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-gi", "1", "-dgi"])
    with pytest.raises(ReplayError, match="In use by another client"):
        replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-gi", "1", "-ci", "0", "-dci"])
    gpus[0].busy.clear()
    replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-gi", "1", "-ci", "0", "-dci"])
    replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-gi", "1", "-dgi"])
    assert gpus[0].layout() == ()
    with pytest.raises(ReplayError, match="not found"):
        replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-gi", "1", "-dgi"])


def test_the_instance_limit_is_the_drivers():
    gpus = {0: ModelGpu(A30)}
    replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-cgi", "21:0", "-C"])
    with pytest.raises(ReplayError, match="more than 1"):
        replay(gpus, ["nvidia-smi", "mig", "-i", "0", "-cgi", "21:1", "-C"])


layouts_a100 = st.sampled_from(all_layouts(A100))


@settings(max_examples=150, deadline=None)
@given(before=layouts_a100, after=layouts_a100)
def test_commands_between_any_two_layouts_replay_to_the_target(before, after):
    """Whatever two valid layouts: the commands destroy what goes, create what comes, and every step is one the
    table allows; the GPU ends in exactly the target layout."""
    gpus = _gpus(before)
    ids = {s: k for k, s in enumerate(before, start=1)}
    keep = set(before) & set(after)
    remove = [LiveInstance(ids[s], s) for s in before if s not in keep]
    create = [s for s in after if s not in keep]
    for cmd in commands(0, A100, remove, create):
        replay(gpus, cmd)
    assert gpus[0].layout() == tuple(sorted(after))


@settings(max_examples=100, deadline=None)
@given(base=layouts_a100, extra=st.lists(st.sampled_from(sorted({s for lay in all_layouts(A100) for s in lay})),
                                        max_size=4))  # fmt: skip
def test_replay_accepts_exactly_what_the_table_allows(base, extra):
    """Creating instances one by one succeeds if and only if the resulting layout is valid."""
    gpus = _gpus(base)
    layout = list(base)
    for s in extra:
        p = A100.profile(s.profile)
        cmd = ["nvidia-smi", "mig", "-i", "0", "-cgi", f"{p.gi_profile_id}:{s.start}", "-C"]
        ok = why_invalid(A100, tuple(sorted([*layout, s]))) is None
        if ok:
            replay(gpus, cmd)
            layout.append(s)
        else:
            with pytest.raises(ReplayError):
                replay(gpus, cmd)
        assert gpus[0].layout() == tuple(sorted(layout))


@settings(max_examples=60, deadline=None)
@given(base=layouts_a100)
def test_extensions_of_a_layout_are_the_valid_supersets(base):
    ext = set(extensions(A100, base))
    supersets = {lay for lay in all_layouts(A100, plus_me=True) if set(base) <= set(lay)}
    assert ext == supersets
