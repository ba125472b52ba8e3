"""The SSH source: one reader per host on a background asyncio loop, and one cluster snapshot of every host's
latest state, assembled when the frame asks for it, so that a slow or dead host never delays the frame."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from gputui.core.errors import SourceError
from gputui.core.model import ClusterSnapshot, NodeSnapshot
from gputui.sources.ssh.reader import HostReader
from gputui.sources.ssh.settings import SshSettings

CLOSE_TIMEOUT_S = 10.0


class SshSource:
    """A :class:`~gputui.sources.base.Source` over ``hosts`` (ssh_config aliases or host names), read over the
    system OpenSSH client. ``poll`` never blocks on a host: it returns what each host sent last."""

    def __init__(
        self, hosts: Sequence[str], settings: SshSettings | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        if not hosts:
            raise SourceError("ssh: no hosts given (ssh:HOST1,HOST2 or gpu[01-16], or a [hosts] list in the config)")
        self.hosts = list(hosts)
        self.settings = settings or SshSettings()
        self.clock = clock
        shown = ",".join(self.hosts[:3]) + (f",... ({len(self.hosts)} hosts)" if len(self.hosts) > 3 else "")
        self.description = f"ssh {shown}"
        self._lock = threading.Lock()
        self._nodes: dict[str, NodeSnapshot] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="gputui-ssh", daemon=True)
        self._thread.start()
        self.readers: list[HostReader] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False
        started: Future[None] = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        started.result(CLOSE_TIMEOUT_S)

    def _publish(self, host: str, node: NodeSnapshot) -> None:
        with self._lock:
            self._nodes[host] = node

    async def _start(self) -> None:
        for h in self.hosts:
            reader = HostReader(h, self.settings, self._publish, self.clock)
            self.readers.append(reader)
            self._tasks.append(asyncio.ensure_future(reader.run()))

    def poll(self) -> ClusterSnapshot:
        with self._lock:
            nodes = tuple(self._nodes.get(h) or NodeSnapshot(h) for h in self.hosts)
        return ClusterSnapshot(self.clock(), nodes, self.description)

    def settle(self, timeout: float | None = None) -> None:
        """Wait until every host has answered or failed (for one-shot commands such as `gputui snapshot`), at most
        ``timeout`` seconds (default: the connect timeout plus 5 s)."""
        limit = self.settings.connect_timeout + 5.0 if timeout is None else timeout
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self._lock:
                waiting = [n for n in self._nodes.values() if n.fault is not None and n.fault.kind == "connecting"]
            if not waiting and len(self._nodes) == len(self.hosts):
                return
            time.sleep(0.05)

    async def _stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def close(self) -> None:
        """Stop every session (each host's shared connection is its detail session); nothing of ours keeps running."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(CLOSE_TIMEOUT_S)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CLOSE_TIMEOUT_S)
        if not self._thread.is_alive():
            self._loop.close()
