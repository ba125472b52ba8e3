"""Local execution: each job is a child process of the user on this machine, started by argv through the
job wrapper, in its own session and process group, with its GPUs in CUDA_VISIBLE_DEVICES.

Jobs survive the gputui that started them: the wrapper records their exit in the job directory, and a later
gputui adopts the processes still running (same pid and same start time) or reads how they ended.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path

from gputui.core.model import ClusterSnapshot
from gputui.jobs.errors import JobError
from gputui.jobs.records import JobRecord
from gputui.jobs.runners.base import Exit, Launch
from gputui.jobs.runners.procstat import host_name, is_alive, read_stat, start_ticks
from gputui.jobs.runners.wrapper import EXIT_FILE, RESERVE_FILE, WRAPPER_FILE, read_json
from gputui.jobs.submission import interpreter
from gputui.statedir import create_private_file, make_private_dir, write_private_file

# Started with -c so that the wrapper imports this very gputui, wherever the job's working directory is.
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); from gputui.jobs.runners.wrapper import main; sys.exit(main())"
)
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)

#: Inherited variables that would mislead a job about what it was given; the decision's own replace them.
_SCRUB_PREFIXES = ("SLURM_", "SLURMD_")
_SCRUB = ("CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PIPE_DIRECTORY")

VANISHED_OFFLINE = "process vanished while gputui was not running"
VANISHED = "process vanished without an exit record"
DISK_FULL = "state unknown: disk full (the job's exit could not be recorded)"


def job_environment(base: dict[str, str], node_env: dict[str, str], rec: JobRecord) -> dict[str, str]:
    """The job's environment: the runner's own, minus stale GPU and Slurm variables, plus the decision's."""
    env = {k: v for k, v in base.items() if k not in _SCRUB and not k.startswith(_SCRUB_PREFIXES)}
    env.update(node_env)
    env["SLURM_JOB_USER"] = rec.user
    env["SLURM_JOB_UID"] = str(rec.uid)
    if rec.cwd:
        env["SLURM_SUBMIT_DIR"] = rec.cwd
    return env


class LocalRunner:
    """Runs jobs under ``root`` (one private directory per job: logs, script copy, wrapper and exit records)."""

    kind = "local"

    def __init__(
        self,
        root: str | os.PathLike[str],
        grace_s: float = 10.0,
        base_env: dict[str, str] | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.root = Path(root)
        self.grace_s = grace_s
        self.base_env = base_env
        self.wall = wall
        self.host = host_name()
        self.owner_uid = os.geteuid()  # the job service sets its user's uid: only that user's rows are run
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._seen_alive: set[int] = set()
        self._killed: set[int] = set()

    # -- submit ---------------------------------------------------------------------------------
    def validate(self, rec: JobRecord) -> JobRecord:
        """Resolve a bare command name on the submitter's PATH now, as a shell would when typed."""
        if rec.script is not None:
            interpreter(rec.script, rec.script_path or "batch script")
            return rec
        if not rec.command:
            raise JobError("no command to run")
        prog = rec.command[0]
        if "/" not in prog:
            found = shutil.which(prog)
            if found is None:
                raise JobError(f"command not found: {prog}")
            return replace(rec, command=(found, *rec.command[1:]))
        path = prog if os.path.isabs(prog) or rec.cwd is None else os.path.join(rec.cwd, prog)
        if not os.path.isfile(path):
            raise JobError(f"no such file: {prog}")
        if not os.access(path, os.X_OK):
            raise JobError(f"not executable: {prog}")
        return rec

    def planned_end(self, rec: JobRecord, now: float) -> float | None:
        return None

    # -- start ----------------------------------------------------------------------------------
    def job_dir(self, job_id: int) -> Path:
        return self.root / str(job_id)

    def _argv(self, rec: JobRecord, job_dir: Path) -> list[str]:
        if rec.script is None:
            return list(rec.command)
        script = job_dir / "script"
        write_private_file(script, rec.script.encode())
        script.chmod(0o700)
        return [*interpreter(rec.script), str(script), *rec.command]

    def start(self, rec: JobRecord, env: dict[str, str]) -> Launch:
        if rec.uid != self.owner_uid:
            # A row written by another user (who could write the store) is never run as this one.
            raise PermissionError(
                errno.EPERM, f"submitted by uid {rec.uid}, not by the store's owner (uid {self.owner_uid}); not run"
            )
        job_dir = make_private_dir(self.job_dir(rec.id))
        for stale in (EXIT_FILE, WRAPPER_FILE, RESERVE_FILE):  # from an earlier run of a requeued job
            (job_dir / stale).unlink(missing_ok=True)
        out, err = job_dir / "stdout.log", job_dir / "stderr.log"
        argv = self._argv(rec, job_dir)
        full_env = job_environment(dict(os.environ) if self.base_env is None else self.base_env, env, rec)
        out_fd, err_fd = create_private_file(out, truncate=True), create_private_file(err, truncate=True)
        try:
            child = subprocess.Popen(
                [sys.executable, "-c", _BOOT, _PACKAGE_ROOT, str(job_dir), "--", *argv],
                cwd=rec.cwd or str(job_dir),
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=out_fd,
                stderr=err_fd,
                start_new_session=True,
            )
        finally:
            os.close(out_fd)
            os.close(err_fd)
        self._children[rec.id] = child
        self._seen_alive.add(rec.id)
        return Launch(child.pid, start_ticks(child.pid), self.host, str(job_dir), str(out), str(err))

    # -- watching -------------------------------------------------------------------------------
    def _pid(self, rec: JobRecord) -> tuple[int | None, int | None]:
        """The wrapper's pid and start time: from the record, else from the file the wrapper wrote first."""
        if rec.pid is not None:
            return rec.pid, rec.pid_start
        info = read_json(self.job_dir(rec.id) / WRAPPER_FILE)
        if info and isinstance(info.get("pid"), int):
            return info["pid"], info.get("start")
        return None, None

    def _exit_record(self, rec: JobRecord) -> Exit | None:
        data = read_json(self.job_dir(rec.id) / EXIT_FILE)
        if data is None or not isinstance(data.get("exit_code"), int):
            return None
        end = data.get("end_time")
        note = data.get("error") or (f"killed by signal {data['signal']}" if data.get("signal") else None)
        return Exit(float(end) if isinstance(end, int | float) else self.wall(), data["exit_code"], note)

    def check(self, rec: JobRecord, now: float) -> Exit | None:
        child = self._children.get(rec.id)
        if child is not None:
            rc = child.poll()
            if rc is None:
                return None
            del self._children[rec.id]
            ended = self._exit_record(rec)
            if ended is None and self._kill_note(rec) is None and self._disk_full(rec):
                return Exit(self.wall(), None, DISK_FULL)
            if ended is None:
                sig = -rc if rc < 0 else None
                code = 128 + sig if sig is not None else rc
                note = self._kill_note(rec) or (f"killed by signal {sig}" if sig else VANISHED)
                ended = Exit(self.wall(), code, note)
            return ended
        pid, start = self._pid(rec)
        if is_alive(pid, start):
            self._seen_alive.add(rec.id)
            return None
        ended = self._exit_record(rec)
        if ended is not None:
            return ended
        if self._kill_note(rec) is None and self._disk_full(rec):
            return Exit(self.wall(), None, DISK_FULL)
        note = self._kill_note(rec) or (VANISHED if rec.id in self._seen_alive else VANISHED_OFFLINE)
        return Exit(self.wall(), 137 if rec.id in self._killed else None, note)

    def _disk_full(self, rec: JobRecord) -> bool:
        try:
            fs = os.statvfs(self.job_dir(rec.id))
        except OSError:
            return False
        return fs.f_bavail == 0 or fs.f_bfree == 0

    def _kill_note(self, rec: JobRecord) -> str | None:
        if rec.id in self._killed:
            return f"killed with SIGKILL after a grace period of {self.grace_s:g} s"
        return None

    # -- stopping -------------------------------------------------------------------------------
    def stop(self, rec: JobRecord, force: bool) -> bool:
        """SIGTERM (or SIGKILL with ``force``) to the job's process group, if it is still the same process."""
        pid, start = self._pid(rec)
        if not is_alive(pid, start):
            return False  # gone already: the next check records how it ended
        assert pid is not None
        try:
            os.killpg(pid, signal.SIGKILL if force else signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            return False
        if force:
            self._killed.add(rec.id)
        return False

    # -- snapshots ------------------------------------------------------------------------------
    def own_pids(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord]) -> Collection[tuple[str, int]]:
        """GPU processes in the session a job's wrapper leads (the job and all it forked), on a GPU the job holds.

        A job's process on a GPU it was not given stays foreign load: that GPU is in use all the same.
        """
        held: dict[int, set[tuple[str, int]]] = {}
        for rec in running:
            pid, _ = self._pid(rec)
            if pid is not None and rec.allocation is not None:
                held[pid] = {(ng.node, g.index) for ng in rec.allocation.nodes for g in ng.gpus}
        if not held:
            return ()
        out = set()
        for node in snapshot.nodes:
            for g in node.gpus:
                pids = {p.pid for p in g.processes} | ({c.pid for c in g.mps.clients} if g.mps else set())
                for pid in pids:
                    st = read_stat(pid)
                    if st is not None and (node.name, g.index) in held.get(st.session, ()):
                        out.add((node.name, pid))
        return out

    def overlay(self, snapshot: ClusterSnapshot, running: Sequence[JobRecord], now: float) -> ClusterSnapshot:
        return snapshot  # real processes show up in the source's own snapshots
