"""The render caches are bounded by bytes, keep what each frame uses, and stay small on a long session."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.segment import Segment
from rich.text import Text
from test_ui_sample_data import T0, cluster
from textual.strip import Strip

from gputui.dashboard.history import KEEP_S, WINDOW_S, History
from gputui.ui.render.byte_bound import ByteBound, strip_bytes, text_bytes
from gputui.ui.render.cell_memo import CellMemo


@settings(max_examples=60, deadline=None)
@given(
    budget=st.integers(1_000, 50_000),
    ops=st.lists(st.tuples(st.integers(0, 300), st.integers(1, 3_000)), max_size=400),
)
def test_held_bytes_never_pass_twice_the_budget_plus_one_entry(budget, ops):
    cache: ByteBound[bytes] = ByteBound(budget, len)
    for key, size in ops:
        if cache.get(key) is None:
            cache.put(key, b"x" * size)
        assert cache.held_bytes() <= 2 * budget + 2 * 3_000
        assert cache.get(key) is not None  # what was just used is there


def test_entries_in_use_survive_turn_overs_and_unused_ones_go():
    cache: ByteBound[bytes] = ByteBound(10_000, len)
    for frame in range(50):
        cache.get("kept") or cache.put("kept", b"k" * 100)  # used in every frame
        for i in range(30):
            cache.put((frame, i), b"v" * 100)  # new values each frame
    assert cache.get("kept") == b"k" * 100
    assert cache.get((0, 0)) is None
    assert len(cache) <= 2 * 10_000 // 100 + 1


def test_fit_sizes_a_generation_to_frames_of_what_is_shown():
    cache: ByteBound[bytes] = ByteBound(64 * 1024, len)
    cache.fit(1_000)
    assert cache.budget == 16 * 1024  # the floor
    cache.fit(100_000)
    assert cache.budget == 300_000


def test_size_estimates_grow_with_what_is_held():
    short, long = Strip([Segment("ab")], 2), Strip([Segment("a" * 100)] * 20, 2000)
    assert strip_bytes(long) > 10 * strip_bytes(short)
    assert text_bytes(Text("x" * 1000)) > text_bytes(Text("x")) + 900


def test_a_cell_memo_stays_bounded_over_many_distinct_values():
    memo = CellMemo()
    for i in range(200_000):
        memo.get(("util", i), Text, f"{i} % of something long enough to weigh")
    assert memo._cells.held_bytes() <= 2 * memo._cells.budget + 1_000
    assert memo.get(("util", 199_999), Text, "never made").plain.startswith("199999")


def test_history_keeps_the_window_and_a_few_steps_back_only():
    """The rings stop growing once the window is full; a step back past what they keep asks for a refill."""
    assert WINDOW_S < KEEP_S <= WINDOW_S + 60
    h = History()
    end = int(KEEP_S) + 200
    for t in range(end + 1):
        h.add(cluster(T0 + t))
    ring = h.series("node-a/0")
    assert ring[0].t >= T0 + end - KEEP_S and ring[-1].t == T0 + end
    assert h.covers(T0 + end - 1, T0)  # one step back: still a full window
    h.cut_after(T0 + end - 30)
    assert not h.covers(T0 + end - 30, T0)  # thirty back: the replay reads the window again
    early = History()
    for t in range(40):
        early.add(cluster(T0 + t))
    early.cut_after(T0 + 10)
    assert early.covers(T0 + 10, T0)  # near the start, the start is as far back as there is
