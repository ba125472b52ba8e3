"""Any snapshot the model allows renders without raising, and a value the source lacks never shows as a number."""

from __future__ import annotations

import io
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from list_source import ListSource
from rich.console import Console
from strategies import gpus
from test_ui_app import SIZE, settle

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.dashboard.occupancy import holder_summary, process_rows
from gputui.ui import create_app
from gputui.ui.palette import PLAIN
from gputui.ui.widgets.detail import render_header
from gputui.ui.widgets.mig_view import render_mig
from gputui.ui.widgets.mps_view import render_mps
from gputui.ui.widgets.overview import OverviewTable, _layout, gpu_cells
from gputui.ui.widgets.process_table import row_cells

CONSOLE = Console(width=200, file=io.StringIO())


@given(gpu=gpus, width=st.sampled_from([40, 80, 160]))
def test_every_renderer_accepts_any_gpu(gpu: GpuSnapshot, width: int) -> None:
    columns, bars = _layout(width, 8, 14)
    row = gpu_cells("n", gpu, columns, bars, PLAIN)
    assert len(row) == len(columns)
    for rendered in (*row, render_mig(gpu, width), render_mps(gpu, width=width), render_header(NodeSnapshot("n"), gpu)):
        CONSOLE.render_lines(rendered, CONSOLE.options.update_width(width))
    for r in process_rows(gpu):
        assert len(row_cells(r, PLAIN)) == 7
    text, kind = holder_summary(gpu)
    assert text and kind in {"lost", "free", "busy", "mig", "mps", "unattributed"}


@given(gpu=gpus)
def test_missing_values_show_na_not_numbers(gpu: GpuSnapshot) -> None:
    gpu = replace(gpu, lost=False, utilization_gpu=None, temperature_c=None, power_draw_w=None, power_limit_w=None)
    columns, bars = _layout(160, 8, 14)
    cells = dict(zip([k for k, _, _ in columns], gpu_cells("n", gpu, columns, bars, PLAIN), strict=True))
    assert cells["util"].plain == cells["temp"].plain == cells["power"].plain == "N/A"


async def test_the_app_survives_hostile_snapshots() -> None:
    odd = GpuSnapshot(0, name="x" * 300, memory_total_mib=0, memory_used_mib=-5, utilization_gpu=250,
                      temperature_c=-40, power_draw_w=900.0, power_limit_w=0.0, compute_mode="Weird_Mode")  # fmt: skip
    snaps = [
        ClusterSnapshot(1.0, ()),  # no nodes at all
        ClusterSnapshot(2.0, (NodeSnapshot("dup", (odd, odd)), NodeSnapshot("dup", (odd,)))),  # repeated keys
        ClusterSnapshot(3.0, (NodeSnapshot("n", (GpuSnapshot(0, lost=True),)),)),
    ]
    source = ListSource(snaps)
    app = create_app(source, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.query_one(OverviewTable).row_count == 0
        for expected in (3, 1):
            app.feed.schedule(0)
            await pilot.pause(0.02)
            await settle(app, pilot)
            table = app.query_one(OverviewTable)
            assert table.row_count == expected and len(set(table.row_order)) == expected
            app.export_screenshot()  # renders every widget
