"""Jobs against hostile and broken conditions: a job that ended before its cancel keeps its own end, a row
another user wrote is never run, a state directory or database others can write is refused, and a store
refusal says "read-only" or "disk full" when that is the cause."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from jobs_helpers import BOB, local_service, machine, py, wait_for

from gputui.jobs.errors import StoreFull, StoreReadOnly
from gputui.jobs.records import COMPLETED, FAILED, RUNNING
from gputui.jobs.store import JobStore
from gputui.statedir import StateDirError, make_private_dir


def test_a_job_that_ended_while_the_owner_stalled_is_completed_not_cancelled(tmp_path: Path) -> None:
    svc = local_service(tmp_path, grace_s=0.3)
    try:
        svc.tick(machine(time.time()))
        job = svc.submit("-c 1", py("pass"))
        wait_for(lambda: svc.tick(machine(time.time())) and svc.store.get(job.id).state == RUNNING)
        exit_file = Path(svc.store.get(job.id).job_dir or "") / "exit.json"
        wait_for(exit_file.exists)  # the job's wrapper recorded its exit
        time.sleep(0.05)  # the owner is stalled: no tick while the job ends by itself
        svc.cancel(job.id)  # then someone cancels it
        wait_for(lambda: svc.tick(machine(time.time())) and svc.store.get(job.id).ended)
        rec = svc.store.get(job.id)
        assert (rec.state, rec.exit_code, rec.end_reason) == (COMPLETED, 0, "completed")
    finally:
        svc.close()


def test_a_row_written_by_another_user_is_never_run(tmp_path: Path) -> None:
    svc = local_service(tmp_path)
    marker = tmp_path / "ran"
    try:
        svc.tick(machine(time.time()))
        job = svc.submit("-c 1", py(f"open({str(marker)!r}, 'w')"), user=BOB)
        wait_for(lambda: svc.tick(machine(time.time())) and svc.store.get(job.id).ended)
        rec = svc.store.get(job.id)
        assert rec.state == FAILED and "submitted by uid 1002, not by the store's owner" in (rec.end_reason or "")
        assert not marker.exists()
    finally:
        svc.close()


def test_a_state_directory_or_database_others_can_write_is_refused(tmp_path: Path) -> None:
    open_dir = tmp_path / "state"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    with pytest.raises(StateDirError, match="writable by other users .mode 0777"):
        make_private_dir(open_dir)
    with pytest.raises(StateDirError, match="writable by other users"):
        JobStore(open_dir / "jobs.db")
    assert not (open_dir / "jobs.db").exists()
    open_dir.chmod(0o700)
    (open_dir / "jobs.db").touch(mode=0o666)
    (open_dir / "jobs.db").chmod(0o666)
    with pytest.raises(StateDirError, match="state database .* writable by other users"):
        JobStore(open_dir / "jobs.db")


class _Fs:
    def __init__(self, readonly: bool = False, full: bool = False) -> None:
        self.f_flag = os.ST_RDONLY if readonly else 0
        self.f_bavail = self.f_bfree = 0 if full else 1000


@pytest.mark.parametrize(("fs", "error", "word"), [(_Fs(readonly=True), StoreReadOnly, "read-only"),
                                                   (_Fs(full=True), StoreFull, "the disk is full")])  # fmt: skip
def test_a_store_that_cannot_be_opened_says_why(tmp_path: Path, monkeypatch, fs, error, word) -> None:  # type: ignore[no-untyped-def]
    store = JobStore(tmp_path / "jobs.db")
    store.close()

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    monkeypatch.setattr(os, "statvfs", lambda p: fs)
    with pytest.raises(error, match=word):
        JobStore(tmp_path / "jobs.db")


def test_the_exit_survives_a_disk_that_filled_while_the_job_ran(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from gputui.jobs.runners import wrapper

    job_dir = tmp_path / "job"
    job_dir.mkdir()
    real = wrapper.write_private_file
    monkeypatch.setattr(wrapper, "start_ticks", lambda pid: None)

    def full_after_start(path, data):  # type: ignore[no-untyped-def]
        if path.name == wrapper.EXIT_FILE:
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(wrapper, "write_private_file", full_after_start)
    assert wrapper.run(job_dir, py("pass")) == 0
    record = wrapper.read_json(job_dir / wrapper.EXIT_FILE)
    assert record is not None and record["exit_code"] == 0  # written into the space reserved at the start
    assert not (job_dir / wrapper.RESERVE_FILE).exists()


def test_an_exit_lost_to_a_full_disk_is_state_unknown_not_a_false_failure(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from gputui.jobs.runners import local

    svc = local_service(tmp_path)
    try:
        svc.tick(machine(time.time()))
        monkeypatch.setattr(os, "statvfs", lambda p: _Fs(full=True))  # the disk is full when the job ends
        # The wrapper dies before it can record anything: no exit record, as when even the reserve is gone.
        job = svc.submit("-c 1", py("import os, signal; os.kill(os.getppid(), signal.SIGKILL)"))
        wait_for(lambda: svc.tick(machine(time.time())) and svc.store.get(job.id).ended, timeout=10)
        rec = svc.store.get(job.id)
        assert rec.end_reason == local.DISK_FULL and rec.exit_code is None
    finally:
        svc.close()
