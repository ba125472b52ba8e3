"""A real OpenSSH server on 127.0.0.1 for the SSH source's tests, with fake GPU hosts behind ssh_config aliases.

Fixtures (registered in tests/conftest.py, usable from any test folder):

- ``ssh_lab``: a :class:`SshLab` in a temp dir: one sshd (Debian's openssh-server, ``.ci/sshd-setup``) started as
  the current user on a free port of 127.0.0.1, with its own host key, a test user key (and a second key sshd does
  not accept), a known_hosts file and an ssh_config (``lab.config``) to pass as ``ssh -F``. Add hosts with
  ``lab.add_host("gpu01", gpus=8)``: each alias points at that sshd and sets ``GPUTUI_FAKE_HOST`` (SetEnv), so the
  fake ``nvidia-smi`` on the remote PATH (tests/support/fake_nvidia_smi.py) gives it its own GPU set, streamed from
  a real capture with changing values. ``lab.control("gpu01", idle=[0])`` reports 0 % on GPU 0; ``stop_after=N``
  stops the stream after N polls, ``garbage=True`` sends garbage, ``delay=S`` makes the host slow, ``exit=127``
  fails at once. ``lab.add_host(..., server=lab.start_server())`` puts a host behind an sshd of its own, which
  ``lab.kill(server)`` kills with every session (a host that dies); ``key="wrong"`` gives a key sshd refuses;
  ``lab.add_unreachable("gpu09")`` an alias whose port has nothing listening; ``nvidia_smi=False`` on a server
  leaves nvidia-smi off the remote PATH.
- ``ssh_lab_env``: ``ssh_lab`` plus a gputui config file (``[ssh] config`` = the lab's ssh_config) in
  ``XDG_CONFIG_HOME`` and a private ``GPUTUI_STATE_DIR``, so that ``gputui ssh:ALIAS`` reaches the lab.

When sshd is not installed the tests skip; with ``CI=true`` they fail (a broken setup).
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from services import free_port, unavailable

SSHD = "/usr/sbin/sshd"
FAKE = Path(__file__).with_name("fake_nvidia_smi.py")


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (sshd's per-connection children start sessions of their own, so a process
    group does not hold them)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: list[int] = []
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), ()):
            out.append(c)
            todo.append(c)
    return out


@dataclass
class Sshd:
    """One sshd on 127.0.0.1:port."""

    port: int
    config: Path
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kill sshd and every session it serves, as when the machine dies."""
        if self.process is None:
            return
        # Stop the whole tree first, again until nothing new appears: a stopped process forks no more, and a
        # killed parent's children would be re-parented out of reach of the scan.
        frozen: set[int] = set()
        for _ in range(10):
            new = {self.process.pid, *descendants(self.process.pid)} - frozen
            if not new:
                break
            for pid in new:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
            frozen |= new
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@dataclass
class SshLab:
    root: Path
    user: str = field(default_factory=getpass.getuser)
    servers: list[Sshd] = field(default_factory=list)
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for d in ("hosts", "ctl", "bin", "nobin"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o700)
        self.host_key = self.root / "host_ed25519"
        self.user_key = self.root / "id_ed25519"
        self.wrong_key = self.root / "id_wrong"
        for k in (self.host_key, self.user_key, self.wrong_key):
            _keygen(k)
        shutil.copy(self.user_key.with_suffix(".pub"), self.root / "authorized_keys")
        (self.root / "authorized_keys").chmod(0o600)
        self.known_hosts = self.root / "known_hosts"
        self.known_hosts.write_text("")
        wrapper = self.root / "bin" / "nvidia-smi"
        wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE} "$@"\n')
        wrapper.chmod(0o755)
        self.config = self.root / "ssh_config"
        self.default = self.start_server()

    # -- servers -----------------------------------------------------------------------------------------------
    def start_server(self, nvidia_smi: bool = True) -> Sshd:
        """Another sshd (same keys) on a free port; ``nvidia_smi`` False leaves the fake off its PATH."""
        port = free_port()
        bindir = self.root / ("bin" if nvidia_smi else "nobin")
        conf = self.root / f"sshd_config.{port}"
        conf.write_text(
            "\n".join(
                [
                    f"ListenAddress 127.0.0.1:{port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
                    f"PidFile {self.root / f'sshd.{port}.pid'}",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "PermitRootLogin prohibit-password",
                    "StrictModes no",
                    f"AllowUsers {self.user}",
                    "AcceptEnv GPUTUI_FAKE_*",
                    # SHLVL=1: bash (run by sshd) skips ~/.bashrc, so that the user's shell setup (pyenv init, ...)
                    # neither slows nor breaks the sessions, and a killed session leaves no lock of it behind
                    f"SetEnv PATH={bindir}:/usr/bin:/bin GPUTUI_FAKE_DIR={self.root} SHLVL=1",
                    "MaxSessions 64",
                    "MaxStartups 200",
                    "LogLevel ERROR",
                    "",
                ]
            )
        )
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation directory
        log = self.root / f"sshd.{port}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(conf)], stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        server = Sshd(port, conf, proc, log)
        deadline = time.monotonic() + 10
        import socket

        while True:
            if proc.poll() is not None:
                unavailable(f"sshd did not start: {log.read_text(errors='replace').strip()[-300:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    server.kill()
                    unavailable("sshd did not listen within 10 s")
                time.sleep(0.02)
        pub = self.host_key.with_suffix(".pub").read_text().split()
        with open(self.known_hosts, "a") as f:
            f.write(f"[127.0.0.1]:{port} {pub[0]} {pub[1]}\n")
        self.servers.append(server)
        return server

    def kill(self, server: Sshd) -> None:
        server.kill()

    # -- hosts -------------------------------------------------------------------------------------------------
    def add_host(
        self,
        alias: str,
        gpus: int = 8,
        *,
        capture: str = "telegraf-tesla-t4.xml",
        server: Sshd | None = None,
        key: str = "user",
        procs: list[dict[str, Any]] | None = None,
        port: int | None = None,
    ) -> str:
        """An alias for a fake GPU host with ``gpus`` GPUs behind ``server`` (default: the lab's sshd)."""
        srv = server or self.default
        (self.root / "hosts" / f"{alias}.json").write_text(
            json.dumps({"gpus": gpus, "capture": capture, "procs": procs or []})
        )
        identity = self.user_key if key == "user" else self.wrong_key
        self.hosts[alias] = {"port": port or srv.port, "identity": identity}
        self._write_config()
        return alias

    def add_unreachable(self, alias: str) -> str:
        """An alias whose port has nothing listening (connection refused)."""
        return self.add_host(alias, port=free_port())

    def control(self, alias: str, **ctl: Any) -> None:
        """What the fake nvidia-smi of ``alias`` does from its next poll on (see fake_nvidia_smi.py)."""
        path = self.root / "ctl" / f"{alias}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(ctl))
        tmp.replace(path)

    def _write_config(self) -> None:
        blocks = []
        for alias, h in self.hosts.items():
            blocks.append(
                "\n".join(
                    [
                        f"Host {alias}",
                        "  HostName 127.0.0.1",
                        f"  Port {h['port']}",
                        f"  User {self.user}",
                        f"  IdentityFile {h['identity']}",
                        "  IdentitiesOnly yes",
                        "  IdentityAgent none",
                        f"  UserKnownHostsFile {self.known_hosts}",
                        "  StrictHostKeyChecking yes",
                        "  PasswordAuthentication no",
                        f"  SetEnv GPUTUI_FAKE_HOST={alias}",
                        "",
                    ]
                )
            )
        self.config.write_text("\n".join(blocks))

    def ssh(self, alias: str, *command: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
        """Run a command on ``alias`` with the system client (for checks of the lab itself)."""
        return subprocess.run(
            ["ssh", "-F", str(self.config), "-o", "BatchMode=yes", alias, *command],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def close(self) -> None:
        for s in self.servers:
            if s.alive:
                s.kill()
        # remote commands of sessions that ended earlier are re-parented away from sshd and end at their next
        # write; a slow fake may sleep first: they are found by the lab's own environment and ended now
        mark = f"GPUTUI_FAKE_DIR={self.root}".encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark not in f.read().split(b"\0"):
                        continue
                os.kill(int(entry), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue


def make_lab() -> Iterator[SshLab]:
    if not Path(SSHD).exists():
        unavailable("sshd is not installed (run .ci/sshd-setup)")
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        unavailable("the OpenSSH client is not installed (run .ci/sshd-setup)")
    # A short root: ssh's ControlPath (a unix socket) must stay under about 100 bytes.
    root = Path(tempfile.mkdtemp(prefix="gtssh-"))
    lab = SshLab(root)
    try:
        yield lab
    finally:
        lab.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def ssh_lab() -> Iterator[SshLab]:
    yield from make_lab()


@pytest.fixture
def ssh_lab_env(ssh_lab: SshLab, monkeypatch: pytest.MonkeyPatch) -> SshLab:
    conf = ssh_lab.root / "xdg"
    (conf / "gputui").mkdir(parents=True)
    (conf / "gputui" / "config.toml").write_text(f'[ssh]\nconfig = "{ssh_lab.config}"\n')
    state = ssh_lab.root / "state"
    state.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(conf))
    monkeypatch.setenv("GPUTUI_STATE_DIR", str(state))
    return ssh_lab


def lab_settings(lab: SshLab, **kw: Any) -> Any:
    """SshSettings for the lab's ssh_config, sharing connections in the lab, with quick retries and stalls."""
    from gputui.sources.ssh import SshSettings

    control = lab.root / "cm"
    control.mkdir(mode=0o700, exist_ok=True)
    base: dict[str, Any] = {
        "config": str(lab.config), "control_dir": control, "detail": 2.0, "retry_min": 0.5, "retry_max": 2.0,
        "connect_timeout": 5,
    }  # fmt: skip
    base.update(kw)
    return SshSettings(**base)


def wait_nodes(source: Any, check: Any, what: str, timeout: float = 30.0) -> Any:
    """Poll ``source`` until ``check(snapshot)`` is true; returns that snapshot (fails after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        snap = source.poll()
        if check(snap):
            return snap
        if time.monotonic() > deadline:
            faults = {n.name: n.fault for n in snap.nodes}
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}; nodes: {faults}")
        time.sleep(0.1)


def ssh_children() -> list[int]:
    """ssh processes below this test process (none may outlive a closed source)."""
    out = []
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "ssh":
                    out.append(pid)
        except OSError:
            continue
    return out
