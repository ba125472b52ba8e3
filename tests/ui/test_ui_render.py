"""Pure tests of what the dashboard draws: cells, holders, MPS attribution, MIG layout, MPS sums, seek times."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text
from test_ui_sample_data import T0, mig_gpu, mps_gpu

from gputui.core.errors import GputuiError, TimeFormatError
from gputui.core.model import Event, GpuInstance, GpuSnapshot, MpsClient, MpsDaemon, ProcessInfo
from gputui.dashboard.actions import DEFAULT_ACTIONS, ActionRegistry, ActionSpec
from gputui.dashboard.job_actions import JOB_ACTIONS
from gputui.dashboard.occupancy import holder_summary, process_rows
from gputui.dashboard.replay import ReplayState
from gputui.dashboard.seek_time import HELP as SEEK_HELP
from gputui.dashboard.seek_time import parse_seek
from gputui.ui.keymap import KeyMap
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.themes import THEMES, next_theme, resolve_theme
from gputui.ui.widgets import cells
from gputui.ui.widgets.bars import MORE, BarItem, fit_items, item_cells
from gputui.ui.widgets.event_log import render_event
from gputui.ui.widgets.job_columns import columns_for
from gputui.ui.widgets.job_detail import ENV_LINE, env_lines, hang
from gputui.ui.widgets.jobs_table import JobRow
from gputui.ui.widgets.mig_view import render_mig
from gputui.ui.widgets.mps_view import render_mps
from gputui.ui.widgets.replay_bar import render_state


@pytest.mark.parametrize(
    ("value", "width", "filled"),
    [(0, 10, ""), (100, 10, "██████████"), (50, 10, "█████"), (57, 10, "█████▊"), (3, 4, "▏")],
)
def test_percent_gauge_fills_in_eighths(value: int, width: int, filled: str) -> None:
    t = cells.percent_gauge(value, width, PLAIN)
    bar = t.plain[:width]
    assert bar == filled + "░" * (width - len(filled))
    assert t.plain.endswith(f"{value}%")


def test_gauges_and_values_show_na_never_zero() -> None:
    assert cells.percent_gauge(None, 10, PLAIN).plain == "N/A"
    assert cells.memory_gauge(None, None, 8, PLAIN).plain == "N/A"
    assert cells.memory_gauge(None, 40960, 3, PLAIN).plain.strip() == "N/A/40G"
    assert cells.temperature(None, PLAIN).plain == "N/A"
    assert cells.power(None, None, PLAIN).plain == "N/A"
    assert cells.power(None, 400.0, PLAIN).plain == "N/A/400W"
    assert cells.power(250.4, None, PLAIN).plain == "250W"
    assert cells.compute_mode(None, PLAIN).plain == "N/A"
    assert cells.memory_gauge(0, 40960, 3, PLAIN).plain == "░░░ 0.0/40G"


def test_levels_use_three_colours() -> None:
    p = Palette.from_variables(dict(THEMES["gputui-dark"].variables))
    assert p.level(10) == p.gauge_low and p.level(60) == p.gauge_mid and p.level(90) == p.gauge_high
    assert len({p.gauge_low, p.gauge_mid, p.gauge_high}) == 3


def test_badges_name_mig_mps_and_pending_changes() -> None:
    assert cells.badges(mig_gpu(), PLAIN).plain == "MIG 3"
    assert cells.badges(mps_gpu(), PLAIN).plain == "MPS 2"
    pending = GpuSnapshot(0, mig_mode_current=False, mig_mode_pending=True)
    assert cells.badges(pending, PLAIN).plain == "MIG→on"
    assert cells.badges(GpuSnapshot(0), PLAIN).plain == ""


def test_mps_clients_are_listed_under_their_server() -> None:
    rows = process_rows(mps_gpu())
    assert [(r.key, r.role) for r in rows] == [("p901", "mps-server"), ("c4001", "mps-client"), ("c4002", "mps-client")]
    assert rows[1].memory_mib == 12000 and rows[1].user == "erin" and rows[1].thread_percentage == 60


def test_mps_clients_stay_visible_when_the_driver_lists_no_server() -> None:
    gpu = replace(mps_gpu(), processes=(ProcessInfo(4001, "M+C", 11000, "erin", "python serve.py"),))
    rows = process_rows(gpu)
    assert [r.key for r in rows] == ["mps-server", "c4001", "c4002"]
    assert rows[0].pid == 901 and rows[1].type == "M+C"


def test_processes_sort_by_gpu_instance_then_pid() -> None:
    gpu = GpuSnapshot(0, processes=(ProcessInfo(9, gi_id=2), ProcessInfo(5, gi_id=1), ProcessInfo(7), ProcessInfo(3)))
    assert [r.pid for r in process_rows(gpu)] == [5, 9, 3, 7]


@pytest.mark.parametrize(
    ("gpu", "text", "kind"),
    [
        (GpuSnapshot(0, lost=True), "GPU lost", "lost"),
        (GpuSnapshot(0, utilization_gpu=0), "free", "free"),
        (GpuSnapshot(0, utilization_gpu=None), "free", "free"),
        (GpuSnapshot(0, utilization_gpu=40), "busy, no process visible", "unattributed"),
        (GpuSnapshot(0, processes=(ProcessInfo(1, user="a"), ProcessInfo(2, user="b"), ProcessInfo(3, user="a"))),
         "a, b", "busy"),
        (GpuSnapshot(0, processes=(ProcessInfo(1), ProcessInfo(2))), "2 processes", "busy"),
        (GpuSnapshot(0, processes=tuple(ProcessInfo(i, user=f"u{i}") for i in range(5))), "u0, u1, u2 +2", "busy"),
        (mig_gpu(), "MIG 2/3 GI busy: carol, dave", "mig"),
        (mps_gpu(), "MPS: erin, frank", "mps"),
    ],
)  # fmt: skip
def test_holder_summary(gpu: GpuSnapshot, text: str, kind: str) -> None:
    assert holder_summary(gpu) == (text, kind)


def test_mig_layout_draws_each_instance_at_its_slots() -> None:
    text = render_mig(mig_gpu(), 86).plain.split("\n")
    assert text[0].startswith("MIG on  3 GPU instances")
    slots, blocks, cis = text[1], text[2], text[3]
    sw = (86 - 6) // 8
    assert slots.split() == ["slot", *map(str, range(8))]
    assert blocks[6:].startswith(" GI1 3g.20gb") and blocks[6 + 4 * sw :].startswith(" GI5 2g.10gb")
    # 1g.5gb does not fit one slot's width with its name: the block shows the name alone, never '1g.'
    assert blocks[6 + 6 * sw : 6 + 7 * sw] == " GI13".ljust(sw - 1) + "▕" and "free" in blocks[6 + 7 * sw :]
    assert cis[6:].startswith(" CI0 1c") and " CI1 2c" in cis[6 : 6 + 4 * sw]
    assert "GI 1 3g.20gb  slots 0-3  mem 8.8/19.5 GiB  42 SM  1 proc" in text
    assert "    CI 1 2c.3g.20gb  28 SM  MIG-bbbb" in text
    assert text[-1] == "nothing more fits"  # slot 7 alone takes no A100-40GB profile


def test_mig_layout_lists_what_still_fits() -> None:
    gpu = replace(mig_gpu(), gpu_instances=mig_gpu().gpu_instances[:1], processes=())
    last = render_mig(gpu, 80).plain.split("\n")[-1]
    assert last.startswith("fits now: ")
    assert "3g.20gb@4" in last and "1g.5gb@4,5,6" in last and "7g.40gb" not in last


def test_mig_layout_reports_overlaps_and_off_and_na() -> None:
    bad = replace(mig_gpu(), gpu_instances=(*mig_gpu().gpu_instances, GpuInstance(2, "1g.5gb", 19, 1, 1)))
    assert "⚠ GI 2 overlaps GI 1" in render_mig(bad, 80).plain
    assert render_mig(GpuSnapshot(0, mig_mode_current=False), 80).plain == "MIG off"
    pending = render_mig(GpuSnapshot(0, mig_mode_current=False, mig_mode_pending=True), 80).plain
    assert pending == "MIG off  → on after the next GPU reset"
    assert render_mig(GpuSnapshot(0), 80).plain == "MIG N/A"
    unplaced = replace(mig_gpu(), name="NVIDIA Future GPU", gpu_instances=(GpuInstance(4, "2g.10gb"),))
    out = render_mig(unplaced, 80).plain
    assert "slots assumed" in out and "GI 4 2g.10gb  placement N/A" in out


def test_mps_panel_sums_threads_and_memory_and_warns() -> None:
    text = render_mps(mps_gpu()).plain
    assert "server pid 901" in text and "pipe /tmp/nvidia-mps" in text
    assert "threads 130% of 100% ⚠ oversubscribed" in text
    assert "memory 32000 of 40960 MiB" in text and "more than the GPU has" not in text
    over = render_mps(mps_gpu(client_mem=(30000, 20000))).plain
    assert "memory 50000 of 40960 MiB ⚠ clients claim more than the GPU has" in over
    unknown = replace(mps_gpu(), mps=MpsDaemon(True, clients=(MpsClient(1), MpsClient(2, 50, 100))))
    assert "threads 50% of 100% (1 N/A)" in render_mps(unknown).plain
    assert render_mps(GpuSnapshot(0)).plain.startswith("MPS N/A")
    assert render_mps(GpuSnapshot(0, mps=MpsDaemon(False))).plain == "MPS daemon down"


def test_seek_accepts_relative_and_clock_times() -> None:
    now, start, end = T0 + 100, T0, T0 + 3600
    assert parse_seek("+90s", current=now, start=start, end=end) == now + 90
    assert parse_seek("-1m30s", current=now, start=start, end=end) == now - 90
    assert parse_seek("12:30", current=now, start=start, end=end) == T0 + 1800
    assert parse_seek("end", current=now, start=start, end=end) == end
    for bad in ("soon", "+", "25:00", "+5x"):
        with pytest.raises(TimeFormatError):
            parse_seek(bad, current=now, start=start, end=end)


def test_replay_state_line() -> None:
    state = ReplayState(False, 2.0, 59, 181, T0 + 59, T0, T0 + 180)
    line = render_state(state, 160).plain
    assert "paused" in line and "2x" in line and "2024-05-01 12:00:59 UTC" in line and "frame 60 / 181" in line
    assert line.endswith("00:00:59 / 00:03:00") and "●" in line
    assert "●" not in render_state(state, 70).plain  # no room for the progress line
    assert "▶ playing" in render_state(replace(state, playing=True), 160).plain


def test_theme_names() -> None:
    assert resolve_theme(None) == "gputui-dark"
    assert resolve_theme("Light") == "gputui-light" and resolve_theme("gputui-contrast") == "gputui-contrast"
    with pytest.raises(GputuiError, match="choose one of gputui-dark, gputui-light, gputui-contrast"):
        resolve_theme("solarized")
    assert [next_theme(n) for n in THEMES] == ["gputui-light", "gputui-contrast", "gputui-dark"]


def test_contrast_theme_never_pairs_red_with_green() -> None:
    p = Palette.from_variables(dict(THEMES["gputui-contrast"].variables))

    def hue(style: object) -> tuple[int, int, int]:
        c = style.color.get_truecolor()  # type: ignore[attr-defined]
        return c.red, c.green, c.blue

    for style in (p.gauge_low, p.gauge_mid, p.gauge_high, p.free, p.lost):
        r, g, b = hue(style)
        assert not (g > 150 and r < 100 and b < 100), "pure green"  # the usual partner of red
    assert hue(p.gauge_low)[2] > 200  # low is blue, high orange: told apart by blue/yellow vision too


def test_registry_filters_mutating_and_replay_actions() -> None:
    registry = ActionRegistry([
        ActionSpec("a", "A", "G", ("x",)),
        ActionSpec("b(1)", "B", "G", ("y",), mutating=True),
        ActionSpec("c", "C", "G", ("z",), replay_only=True),
    ])  # fmt: skip
    assert [s.name for s in registry.available(readonly=True, replay=False)] == ["a"]
    assert [s.name for s in registry.available(readonly=False, replay=True)] == ["a", "b", "c"]
    assert registry.allows_name("b", readonly=True, replay=True) is False
    assert registry.allows_name("unknown", readonly=True, replay=True) is None
    keys = [k for s in DEFAULT_ACTIONS for k in s.keys]
    assert len(keys) == len(set(keys)), "a key bound twice"


def test_event_lines_prefer_the_message() -> None:
    e = Event(T0 + 5, "job_started", "48226 started on node04 GPU 0", node="node04", gpus=(0,), job_id="48226")
    assert render_event(e).plain == "12:00:05 job_started   48226 started on node04 GPU 0"
    bare = Event(T0, "mps_stopped", node="node04", gpus=(0, 1))
    assert render_event(bare).plain == "12:00:00 mps_stopped   node04 GPU 0,1"


_titles = st.text(alphabet="abcdefghij /→", min_size=1, max_size=14)


@given(st.lists(st.tuples(st.sampled_from(["a", "space", "←", "?"]), _titles), max_size=20), st.integers(0, 200))
def test_the_key_bar_keeps_whole_items_in_priority_order_and_ends_with_more(
    items: list[tuple[str, str]], width: int
) -> None:
    bar = [BarItem(key, title, f"a{i}") for i, (key, title) in enumerate(items)]
    shown = fit_items(bar, width, MORE)
    if width < item_cells(MORE):
        assert shown == []
        return
    assert shown[-1] == MORE and shown[:-1] == bar[: len(shown) - 1]  # a prefix: nothing skipped
    assert sum(map(item_cells, shown)) <= width
    if len(shown) - 1 < len(bar):  # the next one would not have fitted
        assert sum(map(item_cells, shown)) + item_cells(bar[len(shown) - 1]) > width


@pytest.mark.parametrize("view", ["overview", "detail", "history", "jobs"])
def test_every_key_bar_item_applies_to_its_view_and_the_help_lists_it(view: str) -> None:
    registry = DEFAULT_ACTIONS.extended(JOB_ACTIONS)
    keymap = KeyMap(registry, readonly=False, replay=True, key_display=lambda b: b.key)
    items = keymap.key_items(view)
    specs = {s.action: s for s in registry}
    assert all(not specs[i.action].views or view in specs[i.action].views for i in items)
    assert "help" not in {i.action for i in items}  # '? more' ends every bar instead
    helped = {s.action for group in registry.groups(readonly=False, replay=True).values() for s in group}
    assert {i.action for i in items} <= helped
    leading = [i.action for i in items if view in specs[i.action].leads]
    assert [i.action for i in items[: len(leading)]] == leading


@pytest.mark.parametrize("view", ["overview", "jobs"])
def test_without_a_queue_the_key_bar_leaves_the_queue_actions_out(view: str) -> None:
    registry = DEFAULT_ACTIONS.extended(JOB_ACTIONS)
    with_queue = KeyMap(registry, readonly=False, replay=False, key_display=lambda b: b.key)
    without = KeyMap(registry, readonly=False, replay=False, key_display=lambda b: b.key, has_queue=lambda: False)
    queue_actions = {s.action for s in registry if s.needs_queue}
    assert {"submit_job", "cancel_job"} <= queue_actions
    assert {i.action for i in with_queue.key_items(view)} & queue_actions
    shown = {i.action for i in without.key_items(view)}
    assert not shown & queue_actions
    assert "toggle_jobs" in shown or view == "jobs"  # the jobs view itself stays reachable: it says why


_job_rows = st.lists(
    st.builds(
        JobRow,
        id=st.integers(1, 10**6), name=st.text(min_size=0, max_size=40), user=st.text(max_size=20),
        state=st.sampled_from(["PENDING", "RUNNING", "COMPLETED"]), reason=st.text(max_size=60),
        granularity=st.sampled_from(["GPU", "MIG", "MPS"]), allocation=st.text(max_size=60),
        submit_time=st.just(0.0), start_time=st.none() | st.just(1.0), elapsed=st.integers(0, 10**7),
        end_time=st.none(),
    ),
    max_size=6,
)  # fmt: skip


@given(st.integers(76, 240), _job_rows)  # the table gets 78 cells at 80 columns
def test_the_jobs_columns_fit_their_width_and_keep_their_headers_whole(width: int, rows: list[JobRow]) -> None:
    columns = columns_for(width, rows)
    keys = [k for k, _, _ in columns]
    assert sum(w + 2 for _, _, w in columns) + 2 <= width
    assert all(w > len(label) for _, label, w in columns)  # room for the sort arrow too
    if width >= 100:
        assert {"reason", "alloc", "start", "elapsed"} <= set(keys)
    else:
        assert keys[:6] == ["id", "name", "user", "state", "elapsed", "where"]


def test_a_long_environment_value_goes_one_item_a_line_so_no_uuid_is_broken() -> None:
    uuids = ["MIG-aa894ee2-7393-2195-5ea0-ee2d7dfbf140", "MIG-bb894ee2-7393-2195-5ea0-ee2d7dfbf141"]
    lines = env_lines("CUDA_VISIBLE_DEVICES", ",".join(uuids)).splitlines()
    assert lines == ["CUDA_VISIBLE_DEVICES=", f"  {uuids[0]},", f"  {uuids[1]}"]
    assert all(len(line) + 2 <= ENV_LINE for line in lines)
    assert env_lines("SLURM_JOB_ID", "12") == "SLURM_JOB_ID=12"


def test_the_seek_box_says_what_it_takes_in_the_words_of_its_prompt_and_help() -> None:
    with pytest.raises(TimeFormatError) as e:
        parse_seek("soon", current=T0, start=T0, end=T0 + 60)
    assert str(e.value) == f"go to 'soon': not a time; use {SEEK_HELP}"  # '+90s' from here, not from the start
    seek = next(s for s in DEFAULT_ACTIONS if s.name == "replay_seek")
    assert SEEK_HELP in seek.help


def test_a_long_detail_value_wraps_under_itself_not_under_its_label() -> None:
    t = Text("Job 2  mig-eval\nWhy        running on node03:1[3g.40gb GI 2] for 180 s\nPriority   0")
    lines = hang(t, 40).plain.splitlines()
    assert lines == [
        "Job 2  mig-eval", "Why        running on node03:1[3g.40gb", "           GI 2] for 180 s", "Priority   0",
    ]  # fmt: skip
    assert hang(t, 0) is t


def test_the_shared_columns_give_up_room_until_the_table_fits() -> None:
    rows = [
        JobRow(1, "", "", "PENDING", "0" * 21, "GPU", "", 0.0, None, 0, None),
        JobRow(1, "0" * 7, "0" * 10, "PENDING", "", "GPU", "", 0.0, 1.0, 864000, None),
    ]  # hypothesis's case: one shared column at its header's width, the other to shrink by all that is over
    assert sum(w + 2 for _, _, w in columns_for(100, rows)) + 2 <= 100
