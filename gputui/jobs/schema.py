"""The state database's tables, versioned with SQLite's ``user_version``; each migration is a list of statements.

A database written by a newer gputui (a higher version) is refused rather than guessed at.
"""

from __future__ import annotations

#: The state database's file name in the state directory.
DB_NAME = "jobs.db"

_V1 = [
    """CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cluster TEXT NOT NULL,
        name TEXT,
        user TEXT NOT NULL,
        uid INTEGER NOT NULL,
        options TEXT NOT NULL,
        request TEXT NOT NULL,
        command TEXT NOT NULL,
        script TEXT,
        script_path TEXT,
        cwd TEXT,
        runner TEXT NOT NULL,
        priority INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT 'None',
        end_reason TEXT,
        allocation TEXT,
        environment TEXT,
        submit_time REAL NOT NULL,
        start_time REAL,
        end_time REAL,
        time_limit_s INTEGER,
        exit_code INTEGER,
        pid INTEGER,
        pid_start INTEGER,
        host TEXT,
        job_dir TEXT,
        stdout_path TEXT,
        stderr_path TEXT,
        sim_end REAL,
        stop_requested TEXT,
        stop_time REAL
    )""",
    "CREATE INDEX jobs_by_state ON jobs (cluster, state)",
    """CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cluster TEXT NOT NULL,
        timestamp REAL NOT NULL,
        kind TEXT NOT NULL,
        job_id INTEGER,
        message TEXT NOT NULL DEFAULT '',
        node TEXT,
        gpus TEXT NOT NULL DEFAULT '[]',
        data TEXT NOT NULL DEFAULT '[]'
    )""",
    "CREATE INDEX events_by_cluster ON events (cluster, id)",
    # one row per queue (a live machine, a replayed recording): its clock and the process that schedules it
    """CREATE TABLE clusters (
        key TEXT PRIMARY KEY,
        clock REAL,
        owner_pid INTEGER,
        owner_start INTEGER,
        owner_host TEXT,
        owner_since REAL
    )""",
]

# what gputui predicted for a job it handed to a workload manager (Slurm), kept for other shells and restarts
_V2 = [
    """CREATE TABLE predictions (
        cluster TEXT NOT NULL,
        job_id INTEGER NOT NULL,
        options TEXT NOT NULL,
        answer TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY (cluster, job_id)
    )""",
]

#: MIGRATIONS[i] takes a database from version i to version i + 1.
MIGRATIONS: list[list[str]] = [_V1, _V2]

SCHEMA_VERSION = len(MIGRATIONS)
