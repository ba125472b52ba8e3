"""What a refresh repaints: only the rows and header lines whose values changed, and kept lines that stay true.

The dashboard refreshes every second; these tests pin down the shortcuts that keep that cheap (rows
marked dirty by key, runs of rows as one region, the detail header redrawing only its changed
line, containers and the screen answering from kept lines, lean strips) against what Textual
itself would draw.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from list_source import ListSource
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from test_ui_app import SIZE, settle
from test_ui_sample_data import T0, cluster
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from gputui.bench._ui_cluster import CyclingSource, busy_frames
from gputui.ui import GputuiApp, create_app
from gputui.ui.render.cell_segments import _slow, cell_segments
from gputui.ui.render.lean_strip import LeanStrip
from gputui.ui.widgets.detail import DetailPane, GpuHeader, render_header
from gputui.ui.widgets.overview import OverviewTable


@asynccontextmanager
async def sample_dashboard() -> AsyncIterator[tuple[GputuiApp, Pilot[None]]]:
    """The dashboard on the sample cluster, settled after its first poll."""
    app = create_app(ListSource([cluster(T0)]), poll_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        yield app, pilot


def _spy_refresh(widget: Widget) -> list[tuple[Region, ...]]:
    """Record the regions of every ``refresh`` call of ``widget`` (an empty tuple: the whole widget)."""
    calls: list[tuple[Region, ...]] = []
    real = widget.refresh

    def refresh(*regions: Region, **kwargs: Any) -> Widget:
        calls.append(regions)
        return real(*regions, **kwargs)

    widget.refresh = refresh  # type: ignore[method-assign]
    return calls


def _segments(strips: list[Strip]) -> list[list[Segment]]:
    return [list(strip) for strip in strips]


async def test_only_the_rows_whose_values_changed_are_marked_dirty() -> None:
    async with sample_dashboard() as (app, pilot):
        table = app.query_one(OverviewTable)
        calls = _spy_refresh(table)
        width = table.size.width
        app.apply_snapshot(cluster(T0 + 1))  # the same values a second later
        assert calls == []
        app.apply_snapshot(cluster(T0 + 2, util=58))  # one GPU's utilization moved
        row = table.row_order.index("node-a/0")
        assert calls == [(Region(0, row + 1, width, 1),)]  # + 1: the header line
        calls.clear()
        app.apply_snapshot(cluster(T0 + 3, util=59, lost=False))  # that GPU and the lost one
        lost_row = table.row_order.index("node-b/0")
        assert calls == [(Region(0, row + 1, width, 1), Region(0, lost_row + 1, width, 1))]


async def test_neighbouring_changed_rows_are_one_region() -> None:
    async with sample_dashboard() as (app, pilot):
        table = app.query_one(OverviewTable)
        calls = _spy_refresh(table)
        table._refresh_rows([4, 1, 2, 0])
        assert calls == [(Region(0, 1, table.size.width, 3), Region(0, 5, table.size.width, 1))]


async def test_the_detail_header_redraws_only_the_line_that_changed() -> None:
    async with sample_dashboard() as (app, pilot):
        header = app.query_one(GpuHeader)
        node, gpu = app.state.selected_gpu()
        assert node is not None and gpu is not None and app.state.selected_key == "node-a/0"
        before = header.text.plain
        assert before == render_header(node, gpu, app.palette, header.size.width).plain
        calls = _spy_refresh(header)
        app.apply_snapshot(cluster(T0 + 1, util=58))
        node, gpu = app.state.selected_gpu()
        assert node is not None and gpu is not None
        after = header.text.plain
        assert after == render_header(node, gpu, app.palette, header.size.width).plain
        assert "util 58%" in after and "util 57%" in before
        changed = [i for i, (a, b) in enumerate(zip(before.split("\n"), after.split("\n"), strict=True)) if a != b]
        assert calls == [tuple(Region(0, i, header.size.width, 1) for i in changed)]
        assert [header.render_line(y).text.rstrip() for y in range(len(changed))] != []
        await pilot.pause()
        drawn = [header.render_line(y).text.rstrip() for y in range(after.count("\n") + 1)]
        assert drawn == [line.rstrip() for line in after.split("\n")]


async def test_kept_lines_are_what_textual_draws_after_a_theme_change_and_a_resize() -> None:
    async with sample_dashboard() as (app, pilot):
        pane = app.screen.query_one(DetailPane)
        widgets: list[Widget] = [app.screen, pane, *pane.query("#detail-info, #processes-box")]

        def check() -> list[list[list[Segment]]]:
            drawn = []
            for widget in widgets:
                crop = widget.size.region
                kept = _segments(widget.render_lines(crop))
                widget._styles_cache.clear()
                assert kept == _segments(Widget.render_lines(widget, crop)), widget
                drawn.append(kept)
            return drawn

        first = check()
        assert first == check()  # asked again without a change: the same lines
        app.action_cycle_theme()
        await pilot.pause()
        themed = check()
        assert themed != first  # the new theme's background reached the kept lines
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        check()


async def test_the_tables_kept_scrollbar_follows_the_scrolling() -> None:
    app = create_app(CyclingSource(busy_frames(1)), poll_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        bar = app.query_one(OverviewTable).vertical_scrollbar
        assert bar.display  # 64 GPUs do not fit
        crop = bar.size.region
        drawn = []
        for key in ("home", "end", "home"):
            await pilot.press(key)
            await pilot.pause()
            kept = _segments(bar.render_lines(crop))
            bar._styles_cache.clear()
            assert kept == _segments(Widget.render_lines(bar, crop))
            drawn.append(kept)
        assert drawn[0] != drawn[1] and drawn[2] == drawn[0]  # the thumb moved down and back


def _strips() -> st.SearchStrategy[list[Segment]]:
    styles = st.sampled_from([None, Style(bold=True), Style(color="red"), Style(bgcolor="blue")])
    text = st.text(alphabet="ab █▏░漢", min_size=1, max_size=6)
    return st.lists(st.tuples(text, styles).map(lambda ts: Segment(*ts)), min_size=1, max_size=8)


@given(segments=_strips(), data=st.data())
def test_lean_strips_cut_crop_and_render_like_strips(segments: list[Segment], data: st.DataObject) -> None:
    strip, lean = Strip(segments), LeanStrip(segments)
    length = strip.cell_length
    assert lean.cell_length == length
    cuts = sorted(set(data.draw(st.lists(st.integers(1, length), max_size=3)))) + [length]
    cuts = sorted(set(cuts))
    assert [(s.text, s.cell_length) for s in lean.divide(cuts)] == [(s.text, s.cell_length) for s in strip.divide(cuts)]
    assert all(isinstance(s, LeanStrip) for s in lean.divide(cuts))
    assert lean.divide(cuts) is lean.divide(cuts)  # kept, as Strip keeps its cuts
    start = data.draw(st.integers(0, length))
    end = data.draw(st.integers(start, length))
    assert list(lean.crop(start, end)) == list(strip.crop(start, end))
    console = Console(color_system="truecolor", width=80)
    assert lean.render(console) == strip.render(console)


def _cells() -> st.SearchStrategy[Text]:
    """Cells as the dashboard builds them (styled pieces appended), and now and then an odd one (spans given
    out of order or overlapping, a base style, right-justified)."""
    styles = st.sampled_from(["", "bold", "red", "on blue", Style(color="green"), Style(italic=True)])
    piece = st.tuples(st.text(alphabet="ab 1█░▏漢", max_size=5), styles)

    def build(pieces: list[tuple[str, str | Style]], base: str | Style, right: bool, extra: list[int]) -> Text:
        t = Text(style=base, justify="right" if right else "left")
        for text, style in pieces:
            t.append(text, style=style)
        if len(extra) == 2 and t.plain:
            a, b = sorted(x % (len(t.plain) + 1) for x in extra)
            t.spans.insert(0, Span(a, b, "underline"))  # first, so possibly out of order or overlapping
        return t

    return st.builds(
        build, st.lists(piece, max_size=4), styles, st.booleans(), st.lists(st.integers(0, 20), max_size=2)
    )


def _cells_of(segments: list[Segment]) -> list[tuple[str, Style | None]]:
    return [(ch, seg.style) for seg in segments for ch in seg.text]


@given(cell=_cells(), w=st.integers(0, 12), edge=st.integers(0, 1))
def test_cell_segments_draw_what_rich_draws(cell: Text, w: int, edge: int) -> None:
    console = Console(width=80, color_system="truecolor")
    base, over = Style(color="white", bgcolor="black"), Style(bgcolor="#333333", bold=True)
    fast = cell_segments(cell, w, base, over, console, edge)
    rich_path = _slow(cell, w, base, over, console, edge)
    assert _cells_of(fast) == _cells_of(rich_path)
    assert sum(s.cell_length for s in fast) == w + 2 * edge or cell.cell_len > w
