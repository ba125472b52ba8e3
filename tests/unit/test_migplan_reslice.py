"""A replay's GPUs re-sliced by `mig apply --simulate`: the snapshot overlay and the per-queue layout file."""

from __future__ import annotations

import json
import stat

from gputui.core.migplan.reslice import apply_layouts
from gputui.jobs.mig_layouts import MigLayouts
from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.synth.mig_validate import validate_gpu_layout


def _demo_last():
    r = RecordingReader(demo_recording())
    try:
        return r.frame(r.frame_count - 1)
    finally:
        r.close()


def _gpu(snap, node, index):
    return next(g for n in snap.nodes if n.name == node for g in n.gpus if g.index == index)


def test_reslice_keeps_kept_instances_drops_their_processes_and_passes_the_validator():
    snap = _demo_last()
    spec = ((1, "3g.40gb", 4), (2, "4g.40gb", 0))  # frank's 3g stays, a new 4g replaces the rest
    new = apply_layouts(snap, {("node03", 0): spec})
    g = _gpu(new, "node03", 0)
    assert [(gi.gi_id, gi.profile, gi.placement_start) for gi in g.gpu_instances] == [(2, "4g.40gb", 0),
                                                                                      (1, "3g.40gb", 4)]  # fmt: skip
    assert _gpu(snap, "node03", 0).gpu_instances[0] in g.gpu_instances  # the kept one, CIs and all
    assert {p.gi_id for p in g.processes} == {1}  # carol's process on GI 3 is gone
    assert validate_gpu_layout(g) == []
    assert apply_layouts(snap, {}) is snap


def test_layout_file_is_private_per_queue_and_survives_a_damaged_file(tmp_path):
    a = MigLayouts(tmp_path, "replay:demo")
    b = MigLayouts(tmp_path, "replay:/x.gtrec")
    a.save({("node03", 0): ((2, "4g.40gb", 0),)})
    assert stat.S_IMODE((tmp_path / "mig-layouts.json").stat().st_mode) == 0o600
    assert a.layouts() == {("node03", 0): ((2, "4g.40gb", 0),)} and b.layouts() == {}
    b.save({("n1", 1): ((1, "7g.80gb", 0),)})
    assert set(json.loads((tmp_path / "mig-layouts.json").read_text())) == {"replay:demo", "replay:/x.gtrec"}
    assert a.reset() and not a.reset()
    assert MigLayouts(tmp_path, "replay:demo").layouts() == {}
    (tmp_path / "mig-layouts.json").write_text("{not json")
    assert MigLayouts(tmp_path, "replay:/x.gtrec").layouts() == {}
