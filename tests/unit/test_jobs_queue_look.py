"""The quick look at a queue before the dashboard's first frame, and a service that takes up events after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from jobs_helpers import ALICE, machine, other_process, sim_service

from gputui.cli.source_factory import open_source
from gputui.jobs.queue_look import cluster_key, idle_queue, is_slurm
from gputui.jobs.runners.simulated import SimRunner
from gputui.jobs.service import JobService
from gputui.jobs.store import JobStore

CLUSTER = "replay:test"  # the queue sim_service uses


def test_no_store_yet_is_an_idle_queue(tmp_path: Path) -> None:
    assert idle_queue(tmp_path / "jobs.db", CLUSTER) == 0
    assert not (tmp_path / "jobs.db").exists()  # looking creates nothing


def test_a_waiting_or_running_job_makes_the_queue_active_an_ended_one_does_not(tmp_path: Path) -> None:
    db = tmp_path / "jobs.db"
    service = sim_service(tmp_path)
    try:
        assert idle_queue(db, CLUSTER) == service.store.last_event_id()
        job = service.submit("--gpus=1 -t 10:00", ["python", "a.py"])
        assert idle_queue(db, CLUSTER) is None  # pending
        service.tick(machine())
        assert service.get(job.id).record.running
        assert idle_queue(db, CLUSTER) is None  # running
        assert idle_queue(db, "replay:another") == service.store.last_event_id()  # other queues do not count
        service.cancel(job.id)
        service.tick(machine(t=1_800_000_010.0))
        assert service.get(job.id).record.ended
        last = idle_queue(db, CLUSTER)
        assert last is not None and last == service.store.last_event_id() and last > 0
    finally:
        service.close()


def test_a_store_it_cannot_read_at_once_is_left_to_the_service(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"this is not a database" * 100)
    assert idle_queue(damaged, CLUSTER) is None
    newer = tmp_path / "newer.db"
    sim_service(tmp_path).close()
    (tmp_path / "jobs.db").rename(newer)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")  # written by a newer gputui
    con.close()
    assert idle_queue(newer, CLUSTER) is None


def test_cluster_keys_and_slurm_test_without_loading_slurm() -> None:
    opened = open_source("demo")
    try:
        assert cluster_key(None, opened.source) == "replay:demo"
        assert cluster_key("DEMO", opened.source) == "replay:demo"
        assert not is_slurm(opened.source)
    finally:
        opened.source.close()


def test_a_service_opened_later_gives_the_events_after_the_look(tmp_path: Path) -> None:
    """An event written between the look and the opening is not lost to 'history'."""
    db = tmp_path / "jobs.db"
    sim_service(tmp_path).close()
    seen = idle_queue(db, CLUSTER)
    assert seen is not None
    other = JobService(JobStore(db), SimRunner(), CLUSTER, user=ALICE, process=other_process())
    try:
        job = other.submit("--gpus=1 -J between", ["true"])
    finally:
        other.close()
    later = JobService(JobStore(db), SimRunner(), CLUSTER, user=ALICE, events_after=seen)
    default = JobService(JobStore(db), SimRunner(), CLUSTER, user=ALICE, process=other_process(2))
    try:
        submitted = [(e.kind, e.job_id) for e in later.tick(machine()).events if e.kind == "job_submitted"]
        assert submitted == [("job_submitted", str(job.id))]
        assert not [e for e in default.tick(machine()).events if e.kind == "job_submitted"]
    finally:
        later.close()
        default.close()
