"""Who holds which unit: job allocations, a recording's events, and processes where no job is known."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from strategies import clusters

from gputui.core.idle import HeldJob, Holder, RecordedJobs, UnitKey, holdings_from_jobs, merge_holdings
from gputui.core.idle.holdings import held_gpus, process_holdings
from gputui.core.model import ClusterSnapshot, Event, GpuSnapshot, MpsClient, MpsDaemon, NodeSnapshot, ProcessInfo
from gputui.core.scheduler.allocation import Allocation, GpuGrant, MigGrant, NodeGrant


def test_allocations_give_whole_gpus_mig_instances_and_shares() -> None:
    grants = (
        GpuGrant(0),
        GpuGrant(1, mig=MigGrant(3, "3g.20gb", 4, 4)),
        GpuGrant(2, mps_percent=30),
        GpuGrant(3, shards=2),
    )
    jobs = [HeldJob("7", Allocation((NodeGrant("n1", grants),)), "bob", "train", 100.0, "slurm")]
    got = holdings_from_jobs(jobs)
    assert set(got) == {
        UnitKey("n1", 0),
        UnitKey("n1", 1, "mig", "3"),
        UnitKey("n1", 2, "mps", "7"),
        UnitKey("n1", 3, "share", "7"),
    }
    assert got[UnitKey("n1", 0)] == Holder("7", "bob", "train", 100.0, "slurm")
    assert [k.label for k in sorted(got)] == ["0", "1 GI 3", "2 MPS", "3 share"]


def _started(t: float, job: str, gpus: tuple[int, ...], **data: str) -> Event:
    return Event(t, "job_started", "", "n1", gpus, job, tuple(data.items()))


def test_recorded_jobs_follow_the_events_and_start_again_after_a_seek() -> None:
    jobs = RecordedJobs()
    jobs.apply([_started(10, "a", (0,), user="ann", pids="11,12"), _started(20, "b", (1,), gi_id="5")])
    got = jobs.holdings()
    assert got[UnitKey("n1", 0)] == Holder("a", "ann", None, 10, "recorded", (11, 12))
    assert UnitKey("n1", 1, "mig", "5") in got
    jobs.apply([Event(30, "job_ended", "", "n1", (0,), "a")])
    assert set(jobs.holdings()) == {UnitKey("n1", 1, "mig", "5")}
    jobs.reset([_started(5, "c", (2,), active_thread_percentage="25", pids="9")])
    assert set(jobs.holdings()) == {UnitKey("n1", 2, "mps", "c")}


def test_processes_hold_what_no_job_is_known_to_hold() -> None:
    whole = GpuSnapshot(0, processes=(ProcessInfo(1, "C", 100, "ann"), ProcessInfo(2, "G", 10, "root")))
    display_only = GpuSnapshot(1, processes=(ProcessInfo(3, "G", 10, "root"),))
    mps = GpuSnapshot(
        2,
        mps=MpsDaemon(True, 50, 51, clients=(MpsClient(60, 50, 10, "svc"),)),
        processes=(ProcessInfo(51, "C", 30, "svc", "nvidia-cuda-mps-server"),),
    )
    mig = GpuSnapshot(3, mig_mode_current=True, processes=(ProcessInfo(4, "C", 5, "cat", gi_id=7),))
    held = GpuSnapshot(4, processes=(ProcessInfo(5, "C", 5, "dan"),))
    snap = ClusterSnapshot(0, (NodeSnapshot("n1", (whole, display_only, mps, mig, held)),))
    got = process_holdings(snap, skip={("n1", 4)})
    assert got == {
        UnitKey("n1", 0): Holder(None, "ann", origin="process"),
        UnitKey("n1", 2, "pid", "60"): Holder(None, "svc", None, None, "process", (60,)),
        UnitKey("n1", 3, "mig", "7"): Holder(None, "cat", origin="process"),
    }


def test_the_more_trusted_map_wins() -> None:
    key = UnitKey("n1", 0)
    queue = {key: Holder("1")}
    procs = {key: Holder(None, "x", origin="process"), UnitKey("n1", 1): Holder(None, "y", origin="process")}
    merged = merge_holdings(queue, procs)
    assert merged[key] == Holder("1") and len(merged) == 2
    assert held_gpus(queue) == {("n1", 0)}


@given(clusters, st.data())
def test_process_holders_never_claim_a_gpu_a_job_holds(snap: ClusterSnapshot, data: st.DataObject) -> None:
    """On any snapshot (hypothesis' model strategy), a GPU named in ``skip`` gets no process unit, a lost GPU none,
    and every unit is on a GPU of the snapshot; the radar then reads each without raising."""
    from gputui.core.idle import IdleRadar

    keys = [(n.name, g.index) for n in snap.nodes for g in n.gpus]
    skip = set(data.draw(st.lists(st.sampled_from(keys), unique=True))) if keys else set()
    got = process_holdings(snap, skip, {})
    # a key is lost when no GPU that answers to it is alive (the strategy may give one node two GPUs of an index)
    alive = {(n.name, g.index) for n in snap.nodes for g in n.gpus if not g.lost}
    lost = set(keys) - alive
    for key in got:
        assert (key.node, key.gpu) in set(keys) - skip - lost
    result = IdleRadar(window_s=0).step(snap, got)
    assert result.held == len(got) and len(result.idle) + len(result.unknown) <= len(got)
