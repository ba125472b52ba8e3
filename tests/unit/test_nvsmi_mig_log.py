"""MIG read from logs, which never carry placements: profiles from CIs, "fits" from slice counts, `plan`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nvsmi_variants import NVSMI, q_text_stream

from gputui.core.mig_profiles import load_models, model_for
from gputui.sources.nvsmi import load_nvsmi_log
from gputui.ui.widgets.mig_view import render_mig

H200_MIG = NVSMI / "exporter-h200-mig-590.48.01.txt"  # 3g.71gb (as 1c + 2c) + 2g.35gb + 2 x 1g.18gb
A100_MIG = NVSMI / "telegraf-a100-sxm4-v12.xml"  # 4 x 1g.20gb on an A100-SXM4-80GB


def test_a_gi_split_into_cis_gets_its_profile_without_the_listing(tmp_path: Path) -> None:
    """The `-q` text alone (no `nvidia-smi -L` beside it): 16 + 32 SMs match no profile, 1 + 2 compute slices
    and 71424 MiB are a 3g.71gb."""
    path = tmp_path / "q.txt"
    path.write_text(q_text_stream(H200_MIG))
    gpu = load_nvsmi_log(path).frames[-1].nodes[0].gpus[0]
    split = gpu.gpu_instances[0]
    assert (split.gi_id, split.profile, split.profile_id, split.sm_count) == (2, "3g.71gb", 9, 60)
    assert [(c.profile, c.sm_count) for c in split.compute_instances] == [("1c.3g.71gb", 16), ("2c.3g.71gb", 32)]
    listed = load_nvsmi_log(H200_MIG).frames[-1].nodes[0].gpus[0]  # the capture has `-L`: the same answer
    assert [g.profile for g in gpu.gpu_instances] == [g.profile for g in listed.gpu_instances]


@pytest.mark.parametrize("log", [H200_MIG, A100_MIG], ids=["h200", "a100"])
def test_a_full_gpu_fits_nothing(log: Path) -> None:
    gpu = load_nvsmi_log(log).frames[-1].nodes[0].gpus[0]
    last = render_mig(gpu, 100).plain.splitlines()[-1]
    assert last.startswith("nothing more fits (8/8 memory"), last
    assert "7g" not in last and "@" not in last


def test_room_from_slice_counts_says_placements_are_unknown() -> None:
    """Edited: the H200 capture with its two 1g.18gb instances gone (as after `nvidia-smi mig -dgi`)."""
    gpu = load_nvsmi_log(H200_MIG).frames[-1].nodes[0].gpus[0]
    gpu = dataclasses.replace(gpu, gpu_instances=gpu.gpu_instances[:2], processes=())
    last = render_mig(gpu, 160).plain.splitlines()[-1]
    assert last.startswith("may fit: ") and "placements are not in the log" in last
    named = last.removeprefix("may fit: ").split("  (")[0].split()
    assert "2g.35gb" in named and "1g.18gb" in named
    assert not any(n.startswith(("3g", "4g", "7g")) for n in named)  # 2 compute slices left
    assert "6/8 memory, 5/7 compute slices used" in last


@st.composite
def _layouts(draw: st.DrawFn) -> tuple[str, list[str], int]:
    """A model and GPU instances placed on it legally (start slots chosen among the free ones)."""
    key = draw(st.sampled_from(sorted(load_models())))
    model = load_models()[key]
    used, names = 0, []
    for _ in range(draw(st.integers(0, 7))):
        profile = draw(st.sampled_from([p for p in model.profiles if not p.name.endswith("+me")]))
        starts = model.free_placements(profile, used)
        if not starts or sum(n == profile.name for n in names) >= profile.max_instances:
            continue
        start = draw(st.sampled_from(starts))
        size = dict(profile.placements)[start]
        used |= ((1 << size) - 1) << start
        names.append(profile.name)
    compute = sum(model.profile(n).compute_slices for n in names)  # type: ignore[union-attr]
    if compute > model.compute_slices:
        names.pop()  # memory slots allowed it, compute slices would not: not a layout a GPU can have
        used = -1
    return key, names, used


@settings(max_examples=150, deadline=None)
@given(_layouts())
def test_slice_counts_never_rule_out_a_real_fit(layout: tuple[str, list[str], int]) -> None:
    key, names, used = layout
    model = load_models()[key]
    room = {p.name for p in model.fits_by_slices(names) or []}
    mem = sum(model.profile(n).memory_slices for n in names)  # type: ignore[union-attr]
    comp = sum(model.profile(n).compute_slices for n in names)  # type: ignore[union-attr]
    for p in model.profiles:
        if p.name in room:  # never claims what the slice counts rule out
            assert mem + p.memory_slices <= model.memory_slices and comp + p.compute_slices <= model.compute_slices
        elif used >= 0 and not p.name.endswith("+me") and sum(n == p.name for n in names) < p.max_instances:
            fits_placed = bool(model.free_placements(p, used)) and comp + p.compute_slices <= model.compute_slices
            assert not fits_placed, (p.name, names)  # whatever really fits is offered


def test_plan_on_a_mig_log_names_no_slot(capsys: pytest.CaptureFixture) -> None:
    from gputui.cli import main

    assert main(["plan", "--source", str(H200_MIG), "--", "--gpus=1g.18gb:1"]) == 0
    out = capsys.readouterr().out
    assert "slot None" not in out and "MIG 1g.18gb GI 9 (its slot is not in the log)" in out
    assert model_for("NVIDIA H200") is not None
