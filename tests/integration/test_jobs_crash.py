"""Crash safety: kill -9 the owning process with 100 jobs queued and some running, start again, and every job
is there; live processes are adopted again (same pid and start time), dead ones are failed with the reason."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from jobs_helpers import local_service, machine, wait_for

from gputui.jobs.records import CANCELLED, COMPLETED, FAILED, PENDING, RUNNING, JobRecord
from gputui.jobs.runners.local import VANISHED_OFFLINE, LocalRunner
from gputui.jobs.runners.procstat import is_alive, start_ticks
from gputui.jobs.submission import build

TESTS = Path(__file__).resolve().parents[1] / "support"

# The owner: queues 100 jobs, runs one pass (four start), says so, and then hangs until it is killed.
OWNER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from jobs_helpers import local_service, machine, py
svc = local_service(Path(sys.argv[1]), grace_s=0.3)
svc.tick(machine(time.time(), whole=4))
long = py("import time; time.sleep(60)")
svc.submit("--gpus=1", long)
svc.submit("--gpus=1", long)
svc.submit("--gpus=1", py("import sys; sys.exit(3)"))
svc.submit("--gpus=1", py("pass"))
for _ in range(96):
    svc.submit("--gpus=2", py("pass"))
svc.tick(machine(time.time(), whole=4))
print("ready", flush=True)
time.sleep(120)
"""


def test_kill_9_with_100_jobs_then_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path), str(TESTS)], stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None and owner.stdout.readline() == b"ready\n"
        jobs_dir = tmp_path / "jobs"
        wait_for(lambda: (jobs_dir / "3" / "exit.json").exists() and (jobs_dir / "4" / "exit.json").exists())
        svc = local_service(tmp_path, grace_s=0.3)
        before = {r.id: r for r in svc.list()}
        assert [before[i].state for i in (1, 2, 3, 4, 5)] == [RUNNING] * 4 + [PENDING]
        # a wrapper writes its exit record, then exits: on a loaded machine that takes a moment
        wait_for(lambda: not any(is_alive(before[i].pid, before[i].pid_start) for i in (3, 4)))
        os.killpg(before[2].pid, signal.SIGKILL)  # job 2 dies while its gputui is down
        owner.kill()  # kill -9 the owner
        owner.wait()
        wait_for(lambda: not is_alive(before[2].pid, before[2].pid_start))

        result = svc.tick(machine(time.time(), whole=4))
        assert result.owner  # the dead owner's lease is taken over
        after = {r.id: r for r in svc.list()}
        assert sorted(after) == list(range(1, 101))  # every job is there
        one = after[1]
        assert (one.state, one.pid, one.pid_start) == (RUNNING, before[1].pid, before[1].pid_start)
        assert is_alive(one.pid, one.pid_start)  # adopted: the same process, still running
        assert (after[2].state, after[2].end_reason) == (FAILED, VANISHED_OFFLINE)
        assert (after[3].state, after[3].exit_code) == (FAILED, 3)  # from the wrapper's exit record
        assert (after[4].state, after[4].exit_code) == (COMPLETED, 0)
        # the GPUs of the three that ended are free again: two 2-GPU jobs start, 94 still wait
        assert [after[i].state for i in (5, 6, 7)] == [RUNNING, RUNNING, PENDING]
        assert sum(r.state == PENDING for r in after.values()) == 94
        ended = {e.job_id: e.kind for e in result.events if e.kind in ("job_ended", "job_failed")}
        assert ended == {"2": "job_failed", "3": "job_failed", "4": "job_ended"}

        svc.cancel(1)  # an adopted job is under control like any other

        def stopped() -> bool:
            svc.tick(machine(time.time(), whole=4))
            return svc.store.get(1).state == CANCELLED  # type: ignore[union-attr]

        wait_for(stopped)
        assert not is_alive(one.pid, one.pid_start)
        svc.close()
    finally:
        if owner.poll() is None:
            owner.kill()
        owner.wait()


def test_a_reused_pid_is_not_taken_for_the_job(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
    try:
        start = start_ticks(stranger.pid)
        assert start is not None
        sub = build("--gpus=1", ["x"])
        rec = JobRecord(7, "local:test", "alice", 1001, "", sub.request, "local", RUNNING, 0.0, command=("x",),
                        pid=stranger.pid, pid_start=start - 1)  # fmt: skip
        runner = LocalRunner(tmp_path, grace_s=0.1)
        ended = runner.check(rec, time.time())
        assert ended is not None and ended.note == VANISHED_OFFLINE and ended.exit_code is None
        sent: list[tuple[int, int]] = []
        monkeypatch.setattr(os, "killpg", lambda pid, sig: sent.append((pid, sig)))
        runner.stop(rec, force=True)  # must not signal a process that merely has the job's old pid
        assert sent == [] and stranger.poll() is None
        runner.stop(replace(rec, pid_start=start), force=True)  # the genuine process would be signalled
        assert sent == [(stranger.pid, signal.SIGKILL)]
    finally:
        stranger.kill()
        stranger.wait()
