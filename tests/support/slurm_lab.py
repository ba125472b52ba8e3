"""A real Slurm 22.05 test cluster on one machine: munged, slurmctld and four slurmd, all on 127.0.0.1.

Used by the live Slurm tests and by hand (``python tests/support/slurm_lab.py start|stop|env DIR``). Every daemon is
stopped by the PID it wrote, never by name, so several labs can run side by side.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "slurmstepd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scontrol", "scancel")
SBIN = Path("/usr/sbin")

# (node, its Gres= in slurm.conf, how many fake GPU devices, its gres.conf GPU lines as (Type or None, File= names))
NODES: tuple[tuple[str, str, int, tuple[tuple[str | None, str], ...]], ...] = (
    ("node01", "gpu:a100:4", 4, (("a100", "nvidia[0-3]"),)),
    ("node02", "gpu:a100:4", 4, (("a100", "nvidia[0-3]"),)),
    (
        "node03",
        "gpu:1g.10gb:2,gpu:2g.20gb:1,gpu:3g.40gb:1",
        4,
        (("1g.10gb", "nvidia[0-1]"), ("2g.20gb", "nvidia2"), ("3g.40gb", "nvidia3")),
    ),
    ("node04", "gpu:2,mps:200", 2, ((None, "nvidia[0-1]"),)),
)
#: Features= of each node: GPU models as a site would label them for --constraint, and what else the node offers
FEATURES = {"node01": "a100,nvlink", "node02": "a100", "node03": "a100,mig", "node04": "mps"}
FINISHED = frozenset({"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "OOM"})
# A Unix socket path must fit in sun_path (108 bytes with its NUL).
MAX_SOCKET_PATH = 100


class LabError(RuntimeError):
    """The lab could not start or a wait ran out; the message carries the daemon log tails."""


def missing_binaries() -> list[str]:
    """Names of the Slurm and munge programs this machine lacks."""
    found = [shutil.which(name, path=f"{SBIN}:{os.environ.get('PATH', '')}") for name in DAEMONS + CLIENTS]
    return [name for name, path in zip(DAEMONS + CLIENTS, found, strict=True) if path is None]


def daemon_binary(name: str) -> Path:
    """The plain build of a Slurm daemon: ``/usr/sbin/NAME-wlm`` when present, so that an installed
    slurm-wlm-emulator (which takes over the ``/usr/sbin/NAME`` alternative and cannot start) is bypassed."""
    plain = SBIN / f"{name}-wlm"
    if plain.exists():
        return plain
    return Path(shutil.which(name, path=f"{SBIN}:{os.environ.get('PATH', '')}") or SBIN / name)


def free_ports(count: int) -> list[int]:
    """Ports free on 127.0.0.1 now, held open together so that they are distinct."""
    holders = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            holders.append(s)
        return [s.getsockname()[1] for s in holders]
    finally:
        for s in holders:
            s.close()


def _alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"({path.name}: no log)"
    return "\n".join(f"  {path.name}: {line}" for line in text[-lines:])


class SlurmLab:
    """One private Slurm cluster under ``root``: node01/02 with 4 A100 each, node03 with MIG-typed GPUs, node04 MPS."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        self.conf_path = self.root / "etc" / "slurm.conf"
        self.bin_dir = self.root / "bin"
        self.log_dir = self.root / "log"
        self.run_dir = self.root / "run"
        self.work_dir = self.root / "work"
        self.hostname = socket.gethostname()
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._child_names: dict[int, str] = {}
        self._socket_dir: Path | None = None
        self._atexit_registered = False
        self.ports: dict[str, int] = {}  # daemon or node name -> its port on 127.0.0.1, chosen at start
        self.started_s: float | None = None  # how long the last start took

    # -- environment -------------------------------------------------------------------------------------------
    @property
    def env(self) -> dict[str, str]:
        """The environment client commands need: SLURM_CONF, and PATH led by the private daemon symlinks."""
        env = dict(os.environ)
        env["SLURM_CONF"] = str(self.conf_path)
        env["PATH"] = f"{self.bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
        for key in [k for k in env if k.startswith(("SLURM_", "SBATCH_", "SQUEUE_", "SINFO_")) and k != "SLURM_CONF"]:
            del env[key]
        return env

    @property
    def munge_socket(self) -> Path:
        base = self._socket_dir or self.root / "munge"
        return base / "munge.socket"

    def run(
        self, argv: Sequence[str], *, check: bool = False, timeout: float = 30, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a client command (sbatch, squeue, ...) against this lab, text in and out, from the lab's work dir."""
        return subprocess.run(
            list(argv),
            env=self.env,
            cwd=self.work_dir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
            input=input,
        )

    def sbatch(self, *options: str, wrap: str = "sleep 300") -> int:
        """Submit a batch job with ``--wrap`` and return its id; raises LabError with sbatch's stderr if refused."""
        argv = ["sbatch", "--parsable", "-o", "/dev/null", *options, "--wrap", wrap]
        done = self.run(argv)
        if done.returncode != 0:
            raise LabError(f"sbatch {' '.join(options)} failed: {done.stderr.strip()}")
        return int(done.stdout.strip().split(";")[0])

    # -- configuration -----------------------------------------------------------------------------------------
    def _write_config(self) -> None:
        for sub in ("etc", "munge", "state", "run", "log", "work", "bin"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "munge").chmod(0o755)  # munged wants its socket's folder searchable by all
        if len(str(self.root / "munge" / "munge.socket")) > MAX_SOCKET_PATH:
            self._socket_dir = Path(tempfile.mkdtemp(prefix="slab-"))
            self._socket_dir.chmod(0o755)
        for name in ("slurmctld", "slurmd", "slurmstepd"):
            link = self.bin_dir / name
            link.unlink(missing_ok=True)
            # Slurm tells daemon from client by argv[0]; a "-wlm" name silently drops every node's Gres.
            link.symlink_to(daemon_binary(name))
        ctld_port, *node_ports = free_ports(1 + len(NODES))
        self.ports = {"slurmctld": ctld_port, **{n[0]: p for n, p in zip(NODES, node_ports, strict=True)}}
        lab = self.root
        conf = [
            "ClusterName=testlab",
            f"SlurmctldHost={self.hostname}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={node_ports[0]}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "CredType=cred/munge",
            "CommunicationParameters=NoCtldInAddrAny,NoInAddrAny",
            f"StateSaveLocation={lab}/state",
            f"SlurmdSpoolDir={lab}/spool/%n",
            f"SlurmctldPidFile={lab}/run/slurmctld.pid",
            f"SlurmdPidFile={lab}/run/slurmd-%n.pid",
            f"SlurmctldLogFile={lab}/log/slurmctld.log",
            f"SlurmdLogFile={lab}/log/slurmd-%n.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "GresTypes=gpu,mps",
            "SchedulerType=sched/backfill",
            "SchedulerParameters=batch_sched_delay=0,bf_interval=1",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            "SlurmdParameters=config_overrides",
            "KillWait=2",
        ]
        gres = ["AutoDetect=off"]
        for (name, node_gres, devices, lines), port in zip(NODES, node_ports, strict=True):
            conf.append(
                f"NodeName={name} NodeHostname={self.hostname} NodeAddr=127.0.0.1 Port={port} Sockets=2 "
                f"CoresPerSocket=8 ThreadsPerCore=1 RealMemory=64000 Features={FEATURES[name]} Gres={node_gres}"
            )
            (lab / "spool" / name).mkdir(parents=True, exist_ok=True)
            dev = lab / "dev" / name
            dev.mkdir(parents=True, exist_ok=True)
            for index in range(devices):
                self._make_device(dev / f"nvidia{index}", index)
            for gpu_type, files in lines:
                type_part = f" Type={gpu_type}" if gpu_type else ""
                gres.append(f"NodeName={name} Name=gpu{type_part} File={dev}/{files}")
            if "mps:" in node_gres:
                count = node_gres.split("mps:")[1]
                gres.append(f"NodeName={name} Name=mps Count={count}")
        conf.append("PartitionName=gpu Nodes=node[01-04] Default=YES MaxTime=INFINITE State=UP")
        self.conf_path.write_text("\n".join(conf) + "\n")
        (self.root / "etc" / "gres.conf").write_text("\n".join(gres) + "\n")

    @staticmethod
    def _make_device(path: Path, index: int) -> None:
        # gres/gpu needs File= paths that stat() as character devices, or the job gets no CUDA_VISIBLE_DEVICES.
        if path.exists() or path.is_symlink():
            return
        try:
            os.mknod(path, 0o666 | 0o020000, os.makedev(195, index))
        except PermissionError:
            path.symlink_to("/dev/null")

    # -- start and stop ----------------------------------------------------------------------------------------
    def _spawn(self, argv: list[str], log_name: str) -> subprocess.Popen[bytes]:
        with open(self.log_dir / log_name, "ab") as out:
            proc = subprocess.Popen(
                argv, env=self.env, cwd=self.root, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                start_new_session=True,
            )  # fmt: skip
        self._children[proc.pid] = proc
        self._child_names[proc.pid] = Path(argv[0]).name
        return proc

    def start(self, timeout_s: float = 30) -> None:
        """Write the configuration, start munged, slurmctld and the slurmds, and wait for the first scheduling pass."""
        missing = missing_binaries()
        if missing:
            raise LabError(
                f"Slurm lab needs {', '.join(missing)} (apt-get install munge slurmctld slurmd slurm-client)"
            )
        if not self._atexit_registered:
            atexit.register(self.stop)
            self._atexit_registered = True
        t0 = time.monotonic()
        deadline = t0 + timeout_s
        try:
            self._write_config()
            key = self.root / "munge" / "munge.key"
            if not key.exists():
                subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True, capture_output=True)
            munge = self.root / "munge"
            self._spawn(
                ["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={self.munge_socket}",
                 f"--pid-file={self.run_dir}/munged.pid", f"--log-file={self.log_dir}/munged.log",
                 f"--seed-file={munge}/munged.seed"],
                "munged.out",
            )  # fmt: skip
            self._wait(lambda: self.munge_socket.exists(), deadline, "munged to open its socket")
            self._spawn([str(self.bin_dir / "slurmctld"), "-D", "-c", "-f", str(self.conf_path)], "slurmctld.out")
            for name, *_ in NODES:
                self._spawn(
                    [str(self.bin_dir / "slurmd"), "-D", "-N", name, "-f", str(self.conf_path),
                     "-d", str(self.bin_dir / "slurmstepd")],
                    f"slurmd-{name}.out",
                )  # fmt: skip
            self._wait(self._all_nodes_idle, deadline, "all four nodes to be idle")
            # The first scheduling pass comes about 3 s after slurmctld starts; a probe job proves it has run.
            probe = self.sbatch("-J", "lab-probe", "-N1", wrap="true")
            self.wait_job_state(probe, {"COMPLETED"}, timeout=max(1.0, deadline - time.monotonic()))
            self._wait(self._all_nodes_idle, deadline, "nodes to be idle after the probe job")
        except BaseException:
            self.stop()
            raise
        self.started_s = time.monotonic() - t0

    def _pids(self) -> list[tuple[str, int]]:
        """(name, pid) of every daemon this lab started: its pid files, plus children of this process."""
        found: dict[int, str] = {}
        for pid_file in sorted(self.run_dir.glob("*.pid")) if self.run_dir.exists() else []:
            with contextlib.suppress(ValueError, OSError, IndexError):
                pid = int(pid_file.read_text().split()[0])
                if self._is_ours(pid):
                    found[pid] = pid_file.stem
        for pid, proc in self._children.items():
            if proc.poll() is None:
                found.setdefault(pid, self._child_names[pid])
        return [(name, pid) for pid, name in found.items()]

    def stop(self, timeout_s: float = 20) -> None:
        """Cancel every job, stop every daemon by its PID (munged last) and wait until all are gone."""
        pids = self._pids()
        if any(name.startswith("slurmctld") and _alive(pid) for name, pid in pids):
            # No slurmstepd or job process may outlive the lab; slurmd does not end them when it stops.
            with contextlib.suppress(LabError, subprocess.SubprocessError, OSError):
                self.cancel_all(timeout=10)
        slurm = [pid for name, pid in pids if not name.startswith("munged")]
        munge = [pid for name, pid in pids if name.startswith("munged")]
        for group in (slurm, munge):
            for pid in group:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            self._reap(group, time.monotonic() + timeout_s / 2)
        # Only if scancel could not run (slurmctld gone): end what is left of this lab's jobs by PID.
        leftovers = self._stepds(with_jobs=True)
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._reap(leftovers, time.monotonic() + 5)
        for pid_file in self.run_dir.glob("*.pid") if self.run_dir.exists() else []:
            pid_file.unlink(missing_ok=True)
        self._children.clear()
        self._child_names.clear()
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

    def _reap(self, pids: list[int], deadline: float) -> None:
        """Wait until every PID is gone, reaping our own children; SIGKILL what is left at the deadline."""
        killed = False
        while True:
            for pid in pids:
                proc = self._children.get(pid)
                if proc is not None:
                    proc.poll()
            left = [pid for pid in pids if _alive(pid)]
            if not left:
                return
            if time.monotonic() > deadline:
                if killed:
                    raise LabError(f"processes {left} survived SIGKILL for 5 s")
                for pid in left:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                killed, deadline = True, time.monotonic() + 5
            time.sleep(0.05)

    def cancel_all(self, timeout: float = 15) -> None:
        """Cancel every job of the lab and wait until none is live, no slurmstepd is left and all nodes are idle."""
        deadline = time.monotonic() + timeout
        self.run(["scancel", "--partition=gpu"], timeout=10)
        self._wait(lambda: self._no_live_jobs() and not self._stepds(), deadline, "jobs to end after scancel")
        self._wait(self._all_nodes_idle, deadline, "nodes to be idle after scancel")

    def expand_hostlist(self, hostlist: str) -> list[str]:
        """Node names of a Slurm host list such as ``node[02-03]``, expanded by Slurm itself."""
        return self.run(["scontrol", "show", "hostnames", hostlist], check=True).stdout.split()

    def _stepds(self, with_jobs: bool = False) -> list[int]:
        """PIDs of this lab's slurmstepd processes (and, ``with_jobs``, of its job processes), found by the
        SLURM_CONF in their environment; a user's shell with the lab's env lacks SLURM_JOB_ID and is left alone."""
        mine = f"SLURM_CONF={self.conf_path}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                environ = (entry / "environ").read_bytes().split(b"\0")
                if mine not in environ:
                    continue
                if (entry / "cmdline").read_bytes().startswith(b"slurmstepd") or (
                    with_jobs and any(v.startswith(b"SLURM_JOB_ID=") for v in environ)
                ):
                    found.append(int(entry.name))
        return found

    def _is_ours(self, pid: int) -> bool:
        """Whether a PID read from a pid file is still one of this lab's daemons, not a reused PID."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return str(self.root).encode() in cmdline or str(self.munge_socket).encode() in cmdline

    # -- waiting -----------------------------------------------------------------------------------------------
    def _wait(self, ready: Callable[[], bool], deadline: float, what: str) -> None:
        while True:
            dead = [self._child_names[pid] for pid, p in self._children.items() if p.poll() is not None]
            if dead:
                raise LabError(f"{', '.join(dead)} exited while waiting for {what}\n{self.log_tail()}")
            if ready():
                return
            if time.monotonic() > deadline:
                raise LabError(f"timed out waiting for {what}\n{self.log_tail()}")
            time.sleep(0.05)

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of every daemon log, for failure messages."""
        if not self.log_dir.exists():
            return ""
        logs = sorted(self.log_dir.glob("*.log"))
        # With -D a daemon copies its log to stdout (*.out); that copy only matters when the log file has nothing.
        logs += [p for p in sorted(self.log_dir.glob("*.out")) if not any(q.stem == p.stem for q in logs)]
        return "\n".join(_tail(p, lines) for p in logs if p.stat().st_size)

    def node_states(self) -> dict[str, str]:
        done = self.run(["sinfo", "-h", "-N", "-o", "%N %T"], timeout=10)
        if done.returncode != 0:
            return {}
        return dict(line.split() for line in done.stdout.splitlines() if line.strip())

    def _all_nodes_idle(self) -> bool:
        states = self.node_states()
        return sorted(states) == [n[0] for n in NODES] and set(states.values()) == {"idle"}

    def _no_live_jobs(self) -> bool:
        done = self.run(["squeue", "-h", "-o", "%i %T"], timeout=10)
        return done.returncode == 0 and not done.stdout.strip()

    def wait_idle(self, timeout: float = 15) -> None:
        """Wait until no job is pending or running and every node is idle."""
        deadline = time.monotonic() + timeout
        self._wait(lambda: self._no_live_jobs() and self._all_nodes_idle(), deadline, "the lab to be idle")

    def job_field(self, job_id: int, field: str) -> str | None:
        """One ``Field=value`` of ``scontrol show job``, or None when slurmctld no longer knows the job."""
        done = self.run(["scontrol", "show", "job", str(job_id)], timeout=10)
        match = re.search(rf"(?:^|\s){re.escape(field)}=(\S*)", done.stdout)
        return match.group(1) if match else None

    def job_state(self, job_id: int) -> str | None:
        """The job's JobState from scontrol, or None when slurmctld no longer knows it."""
        return self.job_field(job_id, "JobState")

    def wait_for(self, ready: Callable[[], bool], what: str, timeout: float = 10) -> None:
        """Poll ``ready`` until it is true; raise LabError naming ``what`` (with the daemon logs) on timeout."""
        self._wait(ready, time.monotonic() + timeout, what)

    def wait_job_state(self, job_id: int, states: Iterable[str], timeout: float = 10) -> str:
        """Poll until the job is in one of ``states`` and return it; LabError if it ends elsewhere or times out."""
        wanted = set(states)
        deadline = time.monotonic() + timeout
        seen: list[str | None] = [None]

        def ready() -> bool:
            seen[0] = self.job_state(job_id)
            if seen[0] in FINISHED and seen[0] not in wanted:
                raise LabError(f"job {job_id} ended {seen[0]} while waiting for {sorted(wanted)}\n{self.log_tail()}")
            return seen[0] in wanted

        self._wait(ready, deadline, f"job {job_id} to reach {sorted(wanted)} (last seen {seen[0]})")
        return str(seen[0])

    def __enter__(self) -> SlurmLab:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _main(argv: Sequence[str], env: Mapping[str, str] = os.environ) -> int:
    if len(argv) != 2 or argv[0] not in {"start", "stop", "env"}:
        print("usage: python tests/support/slurm_lab.py start|stop|env DIR", file=sys.stderr)
        return 2
    action, root = argv
    lab = SlurmLab(Path(root))
    if action == "start":
        lab.start()
        atexit.unregister(lab.stop)  # the daemons outlive this command; `stop DIR` ends them
        print(f'slurm lab up in {lab.started_s:.1f} s; run: eval "$(python {sys.argv[0]} env {lab.root})"')
    elif action == "stop":
        lab.stop()
        print("slurm lab stopped")
    else:
        print(f"export SLURM_CONF={shlex.quote(str(lab.conf_path))}")
        print(f'export PATH={shlex.quote(str(lab.bin_dir))}:"$PATH"')
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
