"""Pure tests of the GPU history rings and the fixed-scale graphs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.style import Style
from test_ui_sample_data import T0, cluster

from gputui.core.model import GpuSnapshot
from gputui.dashboard.history import KEEP_S, History, Sample, frames_for_window, sample
from gputui.ui.palette import PLAIN
from gputui.ui.screens.history_screen import power_scale, render_compact, render_graphs
from gputui.ui.widgets.graph import LOST, NA, Pick, columns, columns_of, render_graph, sparkline

RED = Style(color="red")


def flat(value: float | None, n: int = 60, lost: bool = False) -> list[Sample]:
    return [Sample(T0 + i, value, value, value, 700.0, value, lost) for i in range(1, n + 1)]


@pytest.mark.parametrize(("value", "height", "full_lines"), [(50.0, 4, 2), (100.0, 4, 4), (25.0, 8, 2), (0.0, 4, 0)])
def test_a_flat_value_fills_its_share_of_a_fixed_scale(value: float, height: int, full_lines: int) -> None:
    lines = render_graph([value] * 10, 100.0, height, lambda p: RED, Style(), RED)
    assert [line.plain for line in lines] == [" " * 10] * (height - full_lines) + ["█" * 10] * full_lines


def test_a_sparkline_is_not_rescaled_to_its_data() -> None:
    # Textual's Sparkline would draw a flat 50 % as full (or empty); on a 0-100 scale it is half a cell.
    assert sparkline([50.0] * 5, 100.0, lambda p: RED, RED, RED).plain == "▄" * 5
    assert sparkline([50.0, 100.0, 12.5], 100.0, lambda p: RED, RED, RED).plain == "▄█▁"
    assert sparkline([200.0], 100.0, lambda p: RED, RED, RED).plain == "█"  # above the scale: full, never wrapped


def test_columns_average_buckets_mark_lost_and_na_and_leave_the_future_empty() -> None:
    samples = [Sample(T0 + i, float(i), None, None, None, None) for i in range(1, 11)]
    assert columns(samples, lambda s: s.util, T0 + 10, 10, 5) == [1.5, 3.5, 5.5, 7.5, 9.5]
    assert columns(samples, lambda s: s.mem, T0 + 10, 10, 5) == [NA] * 5
    assert columns(flat(None, 4, lost=True), lambda s: s.util, T0 + 4, 4, 4) == [LOST] * 4
    # Two minutes of data in a five-minute window: the older columns stay empty.
    assert columns(flat(40.0, 120), lambda s: s.util, T0 + 120, 300, 5) == [None, None, None, 40.0, 40.0]
    # A short gap (missed polls) carries the last value; a paused replay's future stays empty.
    gap = [Sample(T0 + 1, 10.0, None, None, None, None), Sample(T0 + 4, 30.0, None, None, None, None)]
    assert columns(gap, lambda s: s.util, T0 + 5, 5, 5) == [10.0, 10.0, 10.0, 30.0, None]


def _series() -> st.SearchStrategy[list[Sample]]:
    """Samples in time order (as History keeps them), with gaps, N/A values and lost moments."""
    value = st.one_of(st.none(), st.floats(0, 800))
    step = st.tuples(st.floats(0.1, 40), value, value, st.booleans())
    return st.lists(step, max_size=40).map(
        lambda steps: [
            Sample(T0 + sum(d for d, *_ in steps[: i + 1]), util, mem, util, 700.0, mem, lost)
            for i, (_, util, mem, lost) in enumerate(steps)
        ]
    )


def _plain_columns(samples: list[Sample], pick: Pick, end: float, seconds: float, width: int) -> list[object]:
    """What ``columns`` computes, the plain way: every sample looked at, one value at a time."""
    if width <= 0:
        return []
    step, start = seconds / width, end - seconds
    sums, counts, lost, seen = [0.0] * width, [0] * width, [False] * width, [False] * width
    for s in samples:
        if start < s.t <= end:
            i = min(width - 1, max(0, math.ceil((s.t - start) / step) - 1))
            seen[i] = True
            if s.lost:
                lost[i] = True
            elif pick(s) is not None:
                sums[i] += pick(s)
                counts[i] += 1
    out: list[object] = []
    last, held = None, 0
    for i in range(width):
        if lost[i] and not counts[i]:
            out.append(LOST)
            last = None
        elif seen[i] and not counts[i]:
            out.append(NA)
            last = None
        elif counts[i]:
            last, held = sums[i] / counts[i], 0
            out.append(last)
        elif last is not None and held < 3:
            held += 1
            out.append(last)
        else:
            out.append(None)
    newest = max((i for i in range(width) if seen[i]), default=-1)
    return [v if i <= newest else None for i, v in enumerate(out)]


@given(series=_series(), width=st.integers(0, 30), back=st.floats(0, 200))
def test_columns_of_several_values_read_only_the_window_once(series: list[Sample], width: int, back: float) -> None:
    end = (series[-1].t if series else T0) - back
    picks = [lambda s: s.util, lambda s: s.mem]
    assert columns_of(series, picks, end, 300.0, width) == [_plain_columns(series, p, end, 300.0, width) for p in picks]


@given(values=st.lists(st.one_of(st.none(), st.just(LOST), st.just(NA), st.floats(-50, 900)), max_size=30))
def test_a_sparkline_is_the_one_line_graph(values: list[float | None | str]) -> None:
    for scale in (100.0, 700.0, 0.0):
        line = sparkline(values, scale, lambda p: RED, Style(color="blue"), Style(color="grey50"))
        graph = render_graph(values, scale, 1, lambda p: RED, Style(), Style(color="blue"), Style(color="grey50"))[0]
        assert (line.plain, line.spans, line.style) == (graph.plain, graph.spans, graph.style)


def test_samples_keep_na_and_lost_apart_from_zero() -> None:
    s = sample(T0, GpuSnapshot(0, utilization_gpu=0, memory_used_mib=None, memory_total_mib=80))
    assert s.util == 0.0 and s.mem is None and not s.lost
    assert sample(T0, GpuSnapshot(0, lost=True, utilization_gpu=50)).lost


def test_history_rings_append_in_order_cut_back_and_forget_old_samples() -> None:
    h = History()
    for i in range(5):
        h.add(cluster(T0 + i, util=i))
    h.add(cluster(T0 + 2))  # the same time again (or older) is not a new sample
    assert [s.util for s in h.series("node-a/0")] == [0, 1, 2, 3, 4]
    h.cut_after(T0 + 2)
    assert [s.t - T0 for s in h.series("node-a/0")] == [0, 1, 2] and h.latest == T0 + 2
    h.add(cluster(T0 + KEEP_S + 10))
    assert [s.t - T0 for s in h.series("node-a/0")] == [KEEP_S + 10]  # older than KEEP_S behind: dropped
    assert h.series("nowhere/0") == []


def test_frames_for_window_spreads_at_most_the_limit_and_ends_at_the_frame_shown() -> None:
    assert list(frames_for_window(0, 9)) == list(range(10))
    r = frames_for_window(100, 1099, limit=300)
    assert r[-1] == 1099 and len(r) <= 300 and r.step == 4
    assert list(frames_for_window(5, 5)) == [5]


def test_graphs_use_fixed_scales_and_say_when_the_power_limit_is_missing() -> None:
    text = render_graphs("node · GPU 0", flat(50.0), T0 + 60, 160, 40, PLAIN).plain
    assert "100%┤" in text and "700W┤" in text and "100°┤" in text and "now 50%" in text
    no_limit = [s._replace(power_limit=None, power=300.0) for s in flat(50.0)]
    assert power_scale(no_limit) == (300.0, False)
    assert "limit N/A" in render_graphs("g", no_limit, T0 + 60, 160, 40, PLAIN).plain
    small = render_compact("g", flat(50.0), T0 + 60, 80, PLAIN).plain.split("\n")
    assert small[1].startswith("Utilization") and small[1].endswith("▄")
    assert render_graphs("g", flat(50.0), T0 + 60, 80, 12, PLAIN).plain == "\n".join(small)
