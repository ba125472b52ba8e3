"""The job store: SQLite in WAL mode, shared by the dashboard and command-line processes of one user.

Every change is one ``BEGIN IMMEDIATE`` transaction, so a failure (locked, full disk, read-only) changes
nothing and the store stays consistent; SQLite's errors become one-line :class:`StoreError` s.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gputui.core.model import Event
from gputui.jobs import job_rows
from gputui.jobs.errors import StoreError, StoreFull, StoreLocked, StoreReadOnly
from gputui.jobs.records import JobRecord
from gputui.jobs.schema import DB_NAME, MIGRATIONS, SCHEMA_VERSION
from gputui.statedir import FILE_MODE, check_private, create_private_file

__all__ = ["DB_NAME", "JobStore", "Owner"]


@dataclass(frozen=True, slots=True)
class Owner:
    """The process that schedules one queue: pid, its start time (clock ticks since boot), host name."""

    pid: int
    start: int | None
    host: str


class JobStore:
    """One connection to the state database; safe to share between the threads of one process."""

    def __init__(self, path: str | os.PathLike[str], busy_timeout_s: float = 5.0) -> None:
        self.path = Path(path)
        self.writes = 0  # own commits; PRAGMA data_version only counts other connections'
        self._lock = threading.RLock()
        check_private(self.path.parent, "state directory")  # no other user may have put rows in it
        check_private(self.path, "state database")
        try:
            if not self.path.exists():
                os.close(create_private_file(self.path))
            elif (self.path.stat().st_mode & 0o777) != FILE_MODE and self.path.stat().st_uid == os.getuid():
                self.path.chmod(FILE_MODE)
        except OSError as e:
            raise StoreError(f"cannot create state database {self.path}: {e.strerror or e}") from None
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as e:
            raise self._error(e) from None
        self._db.row_factory = sqlite3.Row
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.Error as e:
            self._db.close()
            raise self._error(e) from None
        except StoreError:
            self._db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- errors ---------------------------------------------------------------------------------
    def _holders(self) -> str:
        try:
            rows = self._db.execute("SELECT owner_pid FROM clusters WHERE owner_pid IS NOT NULL").fetchall()
        except sqlite3.Error:
            rows = []
        pids = sorted({r[0] for r in rows})
        who = ", ".join(f"pid {p}" for p in pids)
        return f"{who}; {self.path}" if who else str(self.path)

    def _error(self, e: sqlite3.Error) -> StoreError:
        name = getattr(e, "sqlite_errorname", "") or ""
        text = str(e)
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
            return StoreLocked(f"state database is locked by another gputui ({self._holders()}); try again")
        if name.startswith("SQLITE_FULL") or "full" in text:
            return StoreFull(f"state database {self.path}: the disk is full; nothing was changed")
        if name.startswith("SQLITE_READONLY") or "readonly" in text:
            return StoreReadOnly(f"state database {self.path} is read-only; nothing was changed")
        if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
            return StoreError(f"{self.path} is not a gputui state database or is damaged ({text}); move it away")
        cause = self._cause()
        if cause == "disk full":
            return StoreFull(f"state database {self.path}: the disk is full; nothing was changed")
        if cause == "read-only":
            return StoreReadOnly(f"state database {self.path} is read-only; nothing was changed")
        if name.startswith("SQLITE_CANTOPEN"):
            return StoreError(f"cannot open state database {self.path}: {text}")
        if name.startswith("SQLITE_IOERR"):
            return StoreError(f"state database {self.path}: I/O error ({text}); nothing was changed")
        return StoreError(f"state database {self.path}: {text}")

    def _cause(self) -> str | None:
        """'disk full' or 'read-only' when the file system says so (SQLite may only say it cannot open a file or
        had an I/O error)."""
        try:
            fs = os.statvfs(self.path.parent)
        except OSError:
            return None
        if fs.f_flag & os.ST_RDONLY:
            return "read-only"
        if fs.f_bfree == 0 or (fs.f_bavail == 0 and os.geteuid() != 0):
            return "disk full"
        for p in (self.path.parent, self.path):
            if p.exists() and not os.access(p, os.W_OK):
                return "read-only"
        return None

    # -- transactions ---------------------------------------------------------------------------
    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed at the end, rolled back on any error."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise self._error(e) from None
            try:
                yield self._db
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                self._rollback()
                raise self._error(e) from None
            except BaseException:
                self._rollback()
                raise
            self.writes += 1

    def _rollback(self) -> None:
        if self._db.in_transaction:
            # SQLite may have rolled back by itself (full disk); either way nothing of it was committed
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._db.execute(sql, tuple(params)).fetchall()
            except sqlite3.Error as e:
                raise self._error(e) from None

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"state database {self.path} was written by a newer gputui (schema {version}, "
                f"this one knows {SCHEMA_VERSION})"
            )
        if version == SCHEMA_VERSION:
            return
        with self.write() as con:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            for i in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[i]:
                    con.execute(statement)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        return int(self._read("PRAGMA user_version")[0][0])

    def revision(self) -> tuple[int, int]:
        """Changes so far, by other connections and by this one: compare two values to see if anything changed."""
        return int(self._read("PRAGMA data_version")[0][0]), self.writes

    # -- jobs -----------------------------------------------------------------------------------
    @staticmethod
    def insert_job(con: sqlite3.Connection, rec: JobRecord) -> int:
        """Insert ``rec`` (its id is ignored); returns the new job id."""
        values = job_rows.record_values(rec)
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        cur = con.execute(f"INSERT INTO jobs ({names}) VALUES ({marks})", tuple(values.values()))
        assert cur.lastrowid is not None
        return cur.lastrowid

    @staticmethod
    def update_job(con: sqlite3.Connection, job_id: int, expect_state: str | None = None, **changes: Any) -> bool:
        """Change fields of one job; with ``expect_state`` only if it is still in that state. True if changed."""
        sets = ", ".join(f"{k} = ?" for k in changes)
        params: list[Any] = [job_rows.encode(k, v) for k, v in changes.items()]
        sql = f"UPDATE jobs SET {sets} WHERE id = ?"
        params.append(job_id)
        if expect_state is not None:
            sql += " AND state = ?"
            params.append(expect_state)
        return con.execute(sql, params).rowcount == 1

    # -- predictions of jobs a workload manager schedules ---------------------------------------
    def put_prediction(self, cluster: str, job_id: int, options: str, answer: dict[str, Any], t: float) -> None:
        """Keep what was predicted for ``job_id`` (an answer of :func:`gputui.slurm.jobs.outcome.outcome_of`)."""
        with self.write() as con:
            con.execute(
                "INSERT OR REPLACE INTO predictions (cluster, job_id, options, answer, time) VALUES (?, ?, ?, ?, ?)",
                (cluster, job_id, options, json.dumps(answer, sort_keys=True), t),
            )

    def prediction(self, cluster: str, job_id: int) -> dict[str, Any] | None:
        """The kept prediction for ``job_id``, or None (a damaged entry reads as none)."""
        rows = self._read("SELECT answer FROM predictions WHERE cluster = ? AND job_id = ?", (cluster, job_id))
        if not rows:
            return None
        try:
            answer = json.loads(rows[0][0])
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def get(self, job_id: int) -> JobRecord | None:
        rows = self._read("SELECT * FROM jobs WHERE id = ?", (job_id,))
        return job_rows.record_from_row(rows[0]) if rows else None

    def jobs(
        self,
        cluster: str | None,
        states: Iterable[str] | None = None,
        user: str | None = None,
        ids: Iterable[int] | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[JobRecord]:
        """Jobs of one queue (``cluster`` None: all queues), filtered, in id order (or newest first)."""
        where: list[str] = []
        params: list[Any] = []
        if cluster is not None:
            where.append("cluster = ?")
            params.append(cluster)
        if states is not None:
            st = list(states)
            where.append(f"state IN ({', '.join('?' for _ in st)})")
            params += st
        if user is not None:
            where.append("user = ?")
            params.append(user)
        if ids is not None:
            id_list = list(ids)
            where.append(f"id IN ({', '.join('?' for _ in id_list)})")
            params += id_list
        sql = "SELECT * FROM jobs" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY id DESC" if newest_first else " ORDER BY id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [job_rows.record_from_row(r) for r in self._read(sql, params)]

    def count(self, cluster: str | None = None) -> int:
        if cluster is None:
            return int(self._read("SELECT COUNT(*) FROM jobs")[0][0])
        return int(self._read("SELECT COUNT(*) FROM jobs WHERE cluster = ?", (cluster,))[0][0])

    def active(self, cluster: str) -> bool:
        """Whether any job of ``cluster`` waits or runs."""
        sql = "SELECT 1 FROM jobs WHERE cluster = ? AND state IN ('PENDING', 'RUNNING') LIMIT 1"
        return bool(self._read(sql, (cluster,)))

    # -- events ---------------------------------------------------------------------------------
    @staticmethod
    def add_event(con: sqlite3.Connection, cluster: str, event: Event) -> None:
        values = job_rows.event_values(cluster, event)
        names = ", ".join(values)
        con.execute(f"INSERT INTO events ({names}) VALUES ({', '.join('?' for _ in values)})", tuple(values.values()))

    def events_after(self, cluster: str, after_id: int) -> list[tuple[int, Event]]:
        rows = self._read("SELECT * FROM events WHERE cluster = ? AND id > ? ORDER BY id", (cluster, after_id))
        return [(r["id"], job_rows.event_from_row(r)) for r in rows]

    def last_event_id(self) -> int:
        return int(self._read("SELECT COALESCE(MAX(id), 0) FROM events")[0][0])

    # -- queues: clock and owner ----------------------------------------------------------------
    def clock(self, cluster: str) -> float | None:
        rows = self._read("SELECT clock FROM clusters WHERE key = ?", (cluster,))
        return rows[0][0] if rows else None

    @staticmethod
    def set_clock(con: sqlite3.Connection, cluster: str, clock: float) -> None:
        con.execute(
            "INSERT INTO clusters (key, clock) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET clock = excluded.clock",
            (cluster, clock),
        )

    def owner(self, cluster: str) -> Owner | None:
        rows = self._read("SELECT owner_pid, owner_start, owner_host FROM clusters WHERE key = ?", (cluster,))
        if not rows or rows[0][0] is None:
            return None
        return Owner(rows[0][0], rows[0][1], rows[0][2] or "")

    def claim(self, cluster: str, me: Owner, alive: Callable[[Owner], bool], now: float) -> Owner | None:
        """Become the scheduler of ``cluster`` unless a live process already is; returns that process, or None."""
        with self.write() as con:
            row = con.execute(
                "SELECT owner_pid, owner_start, owner_host FROM clusters WHERE key = ?", (cluster,)
            ).fetchone()
            if row is not None and row[0] is not None:
                holder = Owner(row[0], row[1], row[2] or "")
                if holder != me and alive(holder):
                    return holder
            con.execute(
                "INSERT INTO clusters (key, owner_pid, owner_start, owner_host, owner_since) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET owner_pid = excluded.owner_pid, owner_start = excluded.owner_start, "
                "owner_host = excluded.owner_host, owner_since = excluded.owner_since",
                (cluster, me.pid, me.start, me.host, now),
            )
        return None

    def release(self, cluster: str, me: Owner) -> None:
        with self.write() as con:
            con.execute(
                "UPDATE clusters SET owner_pid = NULL, owner_start = NULL, owner_host = NULL "
                "WHERE key = ? AND owner_pid = ? AND owner_host = ?",
                (cluster, me.pid, me.host),
            )
