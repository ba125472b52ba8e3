"""The state store: private files, schema versions, WAL sharing, and clear one-line errors (locked, full, read-only)
that leave the store as it was."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from jobs_helpers import ALICE, machine, sim_service

from gputui.jobs.errors import StoreError, StoreFull, StoreLocked, StoreReadOnly
from gputui.jobs.schema import SCHEMA_VERSION
from gputui.jobs.store import JobStore
from gputui.statedir import StateDirError, state_dir, state_dir_path


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_state_dir_follows_xdg_and_the_override(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("GPUTUI_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    assert state_dir_path() == tmp_path / "home" / ".local" / "state" / "gputui"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")
    assert state_dir_path() == tmp_path / "home" / ".local" / "state" / "gputui"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir_path() == tmp_path / "xdg" / "gputui"
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(tmp_path / "override"))
    assert state_dir_path() == tmp_path / "override"


def test_state_dir_and_database_files_are_private(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    try:
        loose = tmp_path / "state"
        loose.mkdir(mode=0o755)
        monkeypatch.setenv("GPUTUI_STATE_DIR", str(loose))
        d = state_dir()
        assert mode(d) == 0o700  # an existing directory of ours that only others can read is tightened
        store = JobStore(d / "jobs.db")
        svc = sim_service(d)  # a second connection: WAL and shared-memory files exist while both are open
        svc.tick(machine())
        svc.submit("--gpus=1", ["true"])
        for name in ("jobs.db", "jobs.db-wal", "jobs.db-shm"):
            assert mode(d / name) == 0o600, name
        svc.close()
        store.close()
    finally:
        os.umask(old)


def test_state_dir_that_is_a_file_is_a_clear_error(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(tmp_path / "f"))
    with pytest.raises(StateDirError, match="state directory .*f"):
        state_dir()


def test_schema_is_versioned_wal_and_migrated_from_empty(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = JobStore(tmp_path / "jobs.db")
    assert store.schema_version == SCHEMA_VERSION >= 1
    con = sqlite3.connect(tmp_path / "jobs.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"jobs", "events", "clusters"} <= tables
    con.close()
    store.close()


def test_newer_schema_and_damaged_files_are_refused_in_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    con = sqlite3.connect(tmp_path / "new.db")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    con.close()
    with pytest.raises(StoreError, match="newer gputui") as e:
        JobStore(tmp_path / "new.db")
    assert "\n" not in str(e.value)
    (tmp_path / "junk.db").write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a gputui state database") as e:
        JobStore(tmp_path / "junk.db")
    assert "\n" not in str(e.value)


def test_locked_database_is_a_clear_error_and_loses_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = sim_service(tmp_path)
    svc.tick(machine())
    first = svc.submit("--gpus=1", ["train"])
    other = sqlite3.connect(tmp_path / "jobs.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreLocked) as e:
            svc.submit("--gpus=1", ["second"])
        msg = str(e.value)
        assert msg.startswith("state database is locked by another gputui (") and msg.endswith("); try again")
        assert str(tmp_path / "jobs.db") in msg
        assert [j.id for j in svc.list()] == [first.id]  # reading still works under WAL
        result = svc.tick(machine(svc.now() + 1))  # the tick reports the lock instead of raising
        assert result.error is not None and "locked" in result.error
    finally:
        other.execute("ROLLBACK")
        other.close()
    again = svc.submit("--gpus=1", ["second"])
    assert [j.id for j in svc.list()] == [first.id, again.id]
    assert svc.tick(machine(svc.now() + 2)).error is None
    svc.close()


def test_full_disk_is_a_clear_error_and_the_store_stays_consistent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = sim_service(tmp_path)
    svc.tick(machine())
    db = svc.store._db
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    ok = 0
    with pytest.raises(StoreFull) as e:
        for _ in range(500):
            svc.submit(["--gpus=1", "-J", "x" * 200], ["train"])
            ok += 1
    assert str(e.value) == f"state database {tmp_path / 'jobs.db'}: the disk is full; nothing was changed"
    jobs = svc.list()
    assert len(jobs) == ok  # the failed submit left no job behind ...
    events = svc.store.events_after(svc.cluster, 0)
    assert [ev.kind for _, ev in events] == ["job_submitted"] * ok  # ... and no event without its job
    db.execute("PRAGMA max_page_count = 1073741823")
    svc.submit("--gpus=1", ["train"])
    assert len(svc.list()) == ok + 1
    svc.close()


def test_read_only_store_is_a_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = sim_service(tmp_path)
    svc.tick(machine())
    svc.store._db.execute("PRAGMA query_only = ON")
    with pytest.raises(StoreReadOnly, match="is read-only; nothing was changed"):
        svc.submit("--gpus=1", ["train"])
    assert svc.list() == []
    svc.close()


def test_a_commit_by_another_process_is_seen_by_the_cheap_change_check(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tui = sim_service(tmp_path)
    tui.tick(machine())
    assert tui.changed()  # the first call always reports
    assert not tui.changed()
    cli = sim_service(tmp_path)
    cli.submit("--gpus=1", ["x"], user=ALICE)
    assert tui.changed()
    assert not tui.changed()
    tui.close()
    cli.close()
