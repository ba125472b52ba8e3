"""How the SSH source talks to hosts: the ssh client's argv and the timings, all plain values."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

#: a unix socket's path must fit in sockaddr_un (108 bytes on Linux, 104 on BSDs), with room for ssh's temp suffix
MAX_SOCKET_PATH = 100


@dataclass(frozen=True)
class SshSettings:
    """``interval``: seconds between value rows; ``detail``: seconds between XML documents (names, processes, MIG);
    ``config``: an ssh_config to use instead of ~/.ssh/config (``ssh -F``); ``control_dir``: where connection
    sharing keeps its sockets (a private directory; None: no sharing); ``stall_after``: seconds without a row
    before a host shows as stalled; backoff doubles from ``retry_min`` to ``retry_max`` seconds."""

    interval: float = 1.0
    detail: float = 15.0
    connect_timeout: int = 10
    config: str | None = None
    control_dir: Path | None = None
    program: str = "ssh"
    stall_after: float | None = None
    retry_min: float = 1.0
    retry_max: float = 60.0
    alive_interval: int = 5

    @property
    def stall_s(self) -> float:
        return self.stall_after if self.stall_after is not None else max(5.0, 3 * self.interval)

    def control_path(self, host: str) -> str | None:
        """The shared connection's socket for ``host``: one per name as given, not ssh's %C (which hashes the
        resolved address), so that two aliases of one machine with different settings never share a session."""
        if self.control_dir is None:
            return None
        digest = hashlib.sha256(host.encode()).hexdigest()[:16]
        path = os.path.join(os.fspath(self.control_dir), f"cm-{digest}")
        return path if len(path) <= MAX_SOCKET_PATH else None

    def base_argv(self, host: str, master: bool) -> list[str]:
        """ssh and the options every session gets: no prompt ever (BatchMode), a bounded connect, keepalives that
        notice a dead link, and the shared connection: the ``master`` session (the detail loop) serves it, the
        others use it. No ControlPersist: a background master would outlive gputui and hold its pipes."""
        argv = [self.program]
        if self.config is not None:
            argv += ["-F", self.config]
        argv += [
            "-T",
            "-o", "BatchMode=yes",
            "-o", f"ConnectTimeout={self.connect_timeout}",
            "-o", f"ServerAliveInterval={self.alive_interval}",
            "-o", "ServerAliveCountMax=3",
            "-o", "LogLevel=ERROR",
        ]  # fmt: skip
        control = self.control_path(host)
        if control is not None:
            argv += ["-o", f"ControlMaster={'yes' if master else 'no'}", "-o", f"ControlPath={control}"]
            argv += ["-o", "ControlPersist=no"]
        return argv

    def session_argv(self, host: str, command: str, master: bool = False) -> list[str]:
        return [*self.base_argv(host, master), "--", host, command]
