"""Per-instance GPM activity from the fake NVML wherever gputui shows utilisation: the detail view's MIG layout and
the History view (the real app through Pilot), `snapshot --json`, the snapshot table and /metrics; an A100 in MIG
mode says N/A with its reason once."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import FIXTURES
from prometheus_client.parser import text_string_to_metric_families
from test_ui_app import row_text, settle

from gputui.cli import main
from gputui.core.model import Activity, ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.serialize import snapshot_to_json
from gputui.export.attribution import Attribution
from gputui.export.collector import render
from gputui.export.frame import Frame
from gputui.render.smi_tables import mig_table
from gputui.sources.nvml import NvmlSource
from gputui.sources.nvml_fake import FakeNvml
from gputui.sources.recording import RecordingReader
from gputui.ui import create_app
from gputui.ui.render.text_panel import TextPanel
from gputui.ui.screens.detail_screen import DetailScreen
from gputui.ui.screens.history_screen import GraphPanel

GPM = FIXTURES / "recording" / "h100-mig-gpm.gtrec"
DEMO = FIXTURES / "demo" / "demo-cluster.gtrec"
A100_REASON = "no GPM on NVIDIA A100-SXM4-40GB (it needs Hopper or newer)"
OWN = [Activity(3, 1, 1, 2), Activity(96, 53, 43, 67), Activity(0, 0, 0, 0), Activity(57, 31, 26, 40)]


def gpm_node() -> NodeSnapshot:
    """GPU 0: the fixture's H100 in MIG mode with set activity per instance; GPU 1: the demo's MIG A100."""
    frames = []
    for path, at in ((GPM, 600), (DEMO, 300)):
        r = RecordingReader(path)
        frames.append(r.frame(at))
        r.close()
    h100, a100 = frames[0].nodes[0].gpus[0], frames[1].node("node02").gpus[0]
    gis = tuple(replace(gi, activity=a) for gi, a in zip(h100.gpu_instances, OWN, strict=True))
    h100 = replace(h100, gpu_instances=gis, activity=None, processes=())
    return NodeSnapshot("gpmnode", (h100, replace(a100, index=1, processes=())), "550.90.07", "12.4")


def live(node: NodeSnapshot) -> NvmlSource:
    return NvmlSource(FakeNvml(node), node_name=node.name, proc_root="/nonexistent", users=lambda uid: None)


def two_polls(node: NodeSnapshot) -> ClusterSnapshot:
    src = live(node)
    src.poll()
    snap = src.poll()  # GPM figures need two samples
    src.close()
    return snap


async def test_the_detail_and_history_views_show_each_instance_and_the_a100_says_why_once(tmp_path) -> None:
    app = create_app(live(gpm_node()), poll_interval=0.05)
    async with app.run_test(size=(140, 60)) as pilot:
        for _ in range(200):
            await settle(app, pilot)
            snap = app.state.snapshot
            if snap is not None and snap.nodes[0].gpus[0].gpu_instances[1].activity is not None:
                break
            await pilot.pause(0.05)
        await settle(app, pilot)
        # a block per instance in placement order (GI 8 57 %, GI 7 0 %, GI 3 96 %, GI 1 3 %), of its own slices
        assert "MIG 4 ▅▁█▁" in [c.strip() for c in row_text(app, "gpmnode/0")]
        assert "MIG 4" in [c.strip() for c in row_text(app, "gpmnode/1")]  # the A100: no blocks
        await pilot.press("enter")  # GPU 0, the H100
        assert isinstance(app.screen, DetailScreen)
        mig = app.screen.query_one("#mig", TextPanel).text.plain
        lines = [ln for ln in mig.splitlines() if ln.strip().startswith("SM ")]
        assert len(lines) == 4
        assert "96%" in lines[2] and "43%" in lines[2] and "█" in lines[2]  # GI 3, 2g.20gb: SM and DRAM bars
        assert "of each instance's own slices" in mig
        await pilot.press("n")  # GPU 1, the A100
        await settle(app, pilot)
        mig = app.screen.query_one("#mig", TextPanel).text.plain
        assert mig.count(A100_REASON) == 1 and not [ln for ln in mig.splitlines() if ln.strip().startswith("SM ")]
        await pilot.press("p", "3")
        await settle(app, pilot)
        graphs = app.screen.query_one(GraphPanel).text.plain
        assert "SM activity per MIG instance" in graphs
        assert [ln.split()[:3] for ln in graphs.splitlines() if ln.startswith("GI ")] == [
            ["GI", "1", "3g.40gb"],
            ["GI", "3", "2g.20gb"],
            ["GI", "7", "1g.10gb"],
            ["GI", "8", "1g.10gb"],
        ]
        assert "96%" in next(ln for ln in graphs.splitlines() if ln.startswith("GI 3 "))


def test_snapshot_json_and_table_carry_each_instance_and_the_reason(capsys) -> None:
    snap = two_polls(gpm_node())
    data = json.loads(snapshot_to_json(snap))
    h100, a100 = data["nodes"][0]["gpus"]
    assert [gi["activity"]["sm_active"] for gi in h100["gpu_instances"]] == [3, 96, 0, 57]
    assert [gi["activity"]["dram_active"] for gi in h100["gpu_instances"]] == [1, 43, 0, 26]
    assert h100["activity"]["sm_active"] == round((3 * 3 + 96 * 2 + 0 + 57) / 7)  # of the whole GPU
    assert a100["activity"] is None and a100["activity_na"] == A100_REASON
    assert all(gi["activity"] is None for gi in a100["gpu_instances"])
    table = mig_table(snap.nodes[0])
    assert table is not None
    assert [c.plain if hasattr(c, "plain") else c for c in table.columns[8].cells][:4] == [
        "3%/1%", "96%/43%", "0%/0%", "57%/26%"]  # fmt: skip
    assert [f.plain for f in table.footer()].count(f"GPU 1: activity N/A: {A100_REASON}") == 1


@pytest.mark.parametrize(("columns", "shown"), [("80", False), ("160", True)])
def test_the_snapshot_column_is_left_out_first_when_narrow(monkeypatch, capsys, columns, shown) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    assert main(["snapshot", str(GPM), "--at", "09:10"]) == 0
    out = capsys.readouterr().out
    assert ("Activity SM/DRAM" in out.split("(not shown at this width:")[0]) is shown
    if not shown:
        assert "(not shown at this width: Activity SM/DRAM, MIG UUID" in out


def test_metrics_give_dcgms_whole_gpu_meaning_and_gputuis_own() -> None:
    snap = two_polls(gpm_node())
    fams = {f.name: f.samples for f in text_string_to_metric_families(render(Frame(snap, Attribution(), 0)).decode())}
    sm = {(s.labels["gpu"], s.labels.get("GPU_I_ID")): s.value for s in fams["DCGM_FI_PROF_SM_ACTIVE"]}
    # dcgm-exporter's meaning: of the whole GPU (an instance's own figure times its 3, 2, 1 of 7 slices)
    assert sm == {("0", None): 0.37, ("0", "1"): 0.0129, ("0", "3"): 0.2743, ("0", "7"): 0.0, ("0", "8"): 0.0814}
    dram = {s.labels.get("GPU_I_ID"): s.value for s in fams["DCGM_FI_PROF_DRAM_ACTIVE"]}
    assert dram["3"] == 0.1229
    assert {s.labels.get("GPU_I_PROFILE") for s in fams["DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"]} >= {"2g.20gb", "3g.40gb"}
    own = {s.labels.get("GPU_I_ID"): s.value for s in fams["gputui_sm_active_ratio"]}
    assert own == {None: 0.37, "1": 0.03, "3": 0.96, "7": 0.0, "8": 0.57}  # of the instance's own slices
    assert {s.labels["gpu"] for s in fams["DCGM_FI_PROF_SM_ACTIVE"]} == {"0"}  # the A100: no sample, never 0


def test_older_recordings_without_the_fields_load(tmp_path) -> None:
    g = GpuSnapshot(0, name="NVIDIA H100 80GB HBM3", activity=Activity(1, 2, 3, 4))
    data = json.loads(snapshot_to_json(ClusterSnapshot(1.0, (NodeSnapshot("n", (g,)),))))
    del data["nodes"][0]["gpus"][0]["activity"], data["nodes"][0]["gpus"][0]["activity_na"]
    from gputui.core.serialize import snapshot_from_json

    assert snapshot_from_json(json.dumps(data)).nodes[0].gpus[0].activity is None


def test_the_profiling_names_are_dcgm_exporters_gauges() -> None:
    rows = (FIXTURES / "dcgm-exporter" / "default-counters.csv").read_text().splitlines()
    known = {}
    for row in rows:
        name, _, rest = row.lstrip("# ").partition(",")
        if name.startswith("DCGM_FI_PROF_"):
            known[name.strip()] = rest.split(",")[0].strip()
    for name in ("DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_DRAM_ACTIVE",
                 "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"):  # fmt: skip
        assert known[name] == "gauge"


def test_mps_clients_show_their_sm_share_where_nvml_gives_it() -> None:
    from gputui.core.model import MpsClient, MpsDaemon
    from gputui.ui.widgets.mps_view import render_mps

    clients = (
        MpsClient(101, 50, 2000, "bob", "python a.py", sm_util=0),
        MpsClient(102, 50, 3000, "al", "b.py", sm_util=71),
    )
    text = render_mps(GpuSnapshot(0, memory_total_mib=80000, mps=MpsDaemon(True, 1, 2, clients=clients))).plain
    assert "SM   0%" in text and "SM  71%" in text
    plain = tuple(replace(c, sm_util=None) for c in clients)
    assert "SM " not in render_mps(GpuSnapshot(0, mps=MpsDaemon(True, 1, 2, clients=plain))).plain


def test_a_hostile_reason_or_profile_reaches_the_terminal_as_plain_text() -> None:
    from gputui.dashboard.history import sample
    from gputui.ui.palette import PLAIN
    from gputui.ui.screens.history_screen import instance_lines
    from gputui.ui.widgets.mig_view import render_mig

    evil = "\x1b[2J[bold red]boom\x07"
    node = gpm_node()
    h100, a100 = node.gpus
    a100 = replace(a100, activity_na=evil)
    text = render_mig(a100, 100).plain
    assert "\x1b" not in text and "\x07" not in text and "[bold red]boom" in text
    footer = [f.plain for f in (mig_table(replace(node, gpus=(h100, a100))) or pytest.fail("no table")).footer()]
    assert not any("\x1b" in f for f in footer) and any("[bold red]boom" in f for f in footer)
    gi = replace(h100.gpu_instances[0], profile=evil)
    g = replace(h100, gpu_instances=(gi, *h100.gpu_instances[1:]))
    lines = instance_lines([sample(1.0, g), sample(2.0, g)], 2.0, 80, PLAIN)
    assert lines and not any("\x1b" in ln.plain or "\x07" in ln.plain for ln in lines)


def test_one_refused_instance_keeps_the_others_bars_and_says_why_once() -> None:
    from gputui.ui.widgets.mig_view import render_mig

    node = gpm_node()
    fake = FakeNvml(node)
    refused = node.gpus[0].gpu_instances[1].gi_id
    fake.gpm.refused.add((0, refused))
    src = NvmlSource(fake, node_name=node.name, proc_root="/nonexistent", users=lambda uid: None)
    src.poll()
    gpu = src.poll().nodes[0].gpus[0]
    src.close()
    text = render_mig(gpu, 100).plain
    assert text.count(f"(GPU instance {refused})") == 1
    bars = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("SM ", "activity N/A"))]
    assert sum(b.startswith("SM ") for b in bars) == 3 and "activity N/A" in bars
