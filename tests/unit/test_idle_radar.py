"""The idle radar on scripted frames: table cases, and invariants against a brute-force reading of the history."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gputui.core.idle import Holder, IdleRadar, UnitKey
from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot, MpsClient, MpsDaemon, NodeSnapshot

JOB = Holder("42", "alice", "train", None, "queue")
G0 = UnitKey("n1", 0)


def frame(t: float, util: int | None, *, mem: int = 1000, lost: bool = False) -> ClusterSnapshot:
    gpu = GpuSnapshot(0, memory_used_mib=mem, memory_total_mib=40_000, utilization_gpu=util, lost=lost)
    return ClusterSnapshot(t, (NodeSnapshot("n1", (gpu,)),))


def run(utils: list[int | None], *, held: list[bool] | None = None, step: float = 60.0, **kw: float) -> list[bool]:
    """Whether G0 is flagged after each frame of ``utils`` (one per ``step`` seconds)."""
    radar = IdleRadar(**kw)  # type: ignore[arg-type]
    out = []
    for i, u in enumerate(utils):
        holds = {G0: JOB} if held is None or held[i] else {}
        out.append(bool(radar.step(frame(i * step, u), holds).idle))
    return out


@pytest.mark.parametrize(
    ("utils", "window", "expected"),
    [
        # a 10-minute window at one frame a minute: flagged once eleven quiet frames span it
        ([0] * 12, 600, [False] * 10 + [True, True]),
        ([4] * 11, 600, [False] * 10 + [True]),  # 4 % is under 5 %
        ([5] * 11, 600, [False] * 11),  # 5 % is not
        ([0] * 5 + [50] + [0] * 11, 600, [False] * 16 + [True]),  # a busy minute starts the window again
        ([0] * 5 + [None] + [0] * 11, 600, [False] * 16 + [True]),  # so does a minute without a reading
        ([0] * 3, 0, [True] * 3),  # a zero window flags any quiet frame
        ([0, 0, 0, 0], 120, [False, False, True, True]),
    ],
)
def test_window_table(utils: list[int | None], window: float, expected: list[bool]) -> None:
    assert run(utils, window_s=window) == expected


def test_an_unheld_gpu_is_never_flagged_and_a_new_holder_starts_over() -> None:
    assert run([0] * 12, held=[False] * 12, window_s=600) == [False] * 12
    assert run([0] * 14, held=[True] * 5 + [False] + [True] * 8, window_s=300) == [False] * 11 + [True] * 3


def test_the_row_names_job_user_since_memory_and_what_was_seen() -> None:
    radar = IdleRadar(window_s=120)
    holder = Holder("42", "alice", "train", 30.0, "queue")
    for t, u in [(60, 3), (120, 1), (180, 2)]:
        res = radar.step(frame(t, u, mem=7000), {G0: holder})
    (row,) = res.idle
    assert (row.node, row.unit, row.holder.job_id, row.holder.user) == ("n1", "0", "42", "alice")
    assert (row.held_since, row.idle_for_s, row.memory_mib) == (30.0, 120.0, 7000)
    assert (row.util_now, row.util_max, row.basis) == (2, 3, "gpu")
    assert res.idle_gpus == {("n1", 0)}


def test_gaps_and_time_going_back_break_the_run() -> None:
    radar = IdleRadar(window_s=120, max_gap_s=90)
    for t in (0, 60, 120):
        assert bool(radar.step(frame(t, 0), {G0: JOB}).idle) == (t == 120)
    assert not radar.step(frame(300, 0), {G0: JOB}).idle  # 180 s without a frame
    assert not radar.step(frame(100, 0), {G0: JOB}).idle  # sought back: nothing known of before


def test_lost_gpu_and_unknown_utilisation_are_unknown_not_idle() -> None:
    radar = IdleRadar(window_s=0)
    res = radar.step(frame(0, None), {G0: JOB})
    assert not res.idle and [r.key for r in res.unknown] == [G0]
    res = radar.step(frame(1, 0, lost=True), {G0: JOB})
    assert not res.idle and len(res.unknown) == 1


def _mig_mps_frame(t: float, util: int | None) -> ClusterSnapshot:
    mig = GpuSnapshot(0, mig_mode_current=True, gpu_instances=(GpuInstance(3, "3g.20gb", memory_used_mib=900),))
    clients = (MpsClient(11, 50, 2000), MpsClient(12, 50, 3000))
    mps = GpuSnapshot(1, utilization_gpu=util, mps=MpsDaemon(True, 1, 2, clients=clients))
    return ClusterSnapshot(t, (NodeSnapshot("n1", (mig, mps)),))


def test_mig_without_utilisation_is_unknown_and_an_mps_share_is_bounded_by_its_gpu() -> None:
    mig = UnitKey("n1", 0, "mig", "3")
    share = UnitKey("n1", 1, "mps", "7")
    holds = {mig: Holder("6"), share: Holder("7", pids=(11,), origin="recorded")}
    radar = IdleRadar(window_s=0)
    res = radar.step(_mig_mps_frame(0, 2), holds)
    assert [r.key for r in res.unknown] == [mig] and res.unknown[0].memory_mib == 900
    (row,) = res.idle
    assert (row.key, row.basis, row.memory_mib, row.unit) == (share, "gpu-bound", 2000, "1 MPS")
    res = radar.step(_mig_mps_frame(1, 60), holds)  # a busy GPU says nothing of one client: unknown
    assert not res.idle and {r.key for r in res.unknown} == {mig, share}
    assert next(r for r in res.unknown if r.key == share).gpu_util == 60


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        IdleRadar(threshold=0)
    with pytest.raises(ValueError):
        IdleRadar(window_s=-1)


# -- invariants against the history -----------------------------------------------------------------------
readings = st.lists(st.tuples(st.integers(1, 90), st.booleans(), st.none() | st.integers(0, 30)), max_size=40)


def _history(steps: list[tuple[int, bool, int | None]]) -> list[tuple[float, bool, int | None]]:
    t, out = 0.0, []
    for dt, held, util in steps:
        t += dt
        out.append((t, held, util))
    return out


def _flags(hist: list[tuple[float, bool, int | None]], threshold: int, window: float, gap: float) -> list[bool]:
    radar = IdleRadar(threshold, window, gap)
    return [bool(radar.step(frame(t, u), {G0: JOB} if h else {}).idle) for t, h, u in hist]


def _oracle(hist: list[tuple[float, bool, int | None]], threshold: int, window: float, gap: float) -> list[bool]:
    """Flagged at frame i iff frames j..i are all held and quiet, none further apart than ``gap``, and the
    earliest such j lies at least ``window`` before frame i."""
    out = []
    for i, (t, _, _) in enumerate(hist):
        j = i
        while j >= 0 and hist[j][1] and hist[j][2] is not None and hist[j][2] < threshold:  # type: ignore[operator]
            if j < i and hist[j + 1][0] - hist[j][0] > gap:
                break
            j -= 1
        first = j + 1
        out.append(first <= i and hist[first][0] <= t - window)
    return out


@given(readings, st.integers(1, 30), st.integers(0, 300), st.integers(30, 200))
def test_matches_the_history_it_was_shown(steps: list, threshold: int, window: int, gap: int) -> None:
    hist = _history(steps)
    flags = _flags(hist, threshold, window, gap)
    assert flags == _oracle(hist, threshold, window, gap)
    for (t, held, util), flagged in zip(hist, flags, strict=True):
        if flagged:  # never an unheld unit, never one that went over the threshold inside the window
            assert held and util is not None and util < threshold
            assert all(u is not None and u < threshold for s, h, u in hist if t - window <= s <= t)


@given(readings, st.integers(1, 30), st.integers(1, 30), st.integers(0, 300), st.integers(0, 300))
def test_monotonic_in_window_and_threshold(steps: list, th1: int, th2: int, w1: int, w2: int) -> None:
    hist = _history(steps)
    lo_th, hi_th = sorted((th1, th2))
    short, long_ = sorted((w1, w2))
    gap = 10_000.0
    wide = _flags(hist, hi_th, short, gap)
    for narrow in (_flags(hist, lo_th, short, gap), _flags(hist, hi_th, long_, gap)):
        assert all(w or not n for n, w in zip(narrow, wide, strict=True))
