"""One host's reader: its two ssh sessions, the node it publishes after each poll, its faults and its retries.

A reader runs as an asyncio task; it only ever replaces its host's entry with a new immutable node, so the frame,
assembled elsewhere from the latest entries, never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace

from gputui.core.errors import SourceError
from gputui.core.model import NodeFault, NodeSnapshot
from gputui.core.plain_text import plain_data, sanitise
from gputui.sources.ssh.faults import classify
from gputui.sources.ssh.remote import (
    END_MARK,
    PS_MARK,
    START_MARK,
    ValueRows,
    detail_command,
    parse_detail,
    values_command,
    with_values,
    without_values,
)
from gputui.sources.ssh.settings import SshSettings

Publish = Callable[[str, NodeSnapshot], None]
LINE_LIMIT = 1 << 20  # longest line read from a host (a ps line with a long command)
MAX_XML_BYTES = 16 << 20
MAX_BANNER_BYTES = 64 << 10
MAX_PS_BYTES = 4 << 20  # the `ps` of a host's GPU processes (a line each)
STDERR_KEEP = 8192
FIRST_ANSWER_S = 30.0  # beyond the connect timeout: login plus a first `nvidia-smi -q -x`


class _Ended(Exception):
    """A session is over: ``kind`` and ``reason`` say why (a NodeFault to show)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class _Proc:
    """One ssh session and the tail of what it wrote on stderr."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stderr = b""
        self._drain = asyncio.ensure_future(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(4096):
            self.stderr = (self.stderr + chunk)[-STDERR_KEEP:]

    async def readline(self) -> bytes:
        assert self.proc.stdout is not None
        try:
            return await self.proc.stdout.readline()
        except (ValueError, asyncio.LimitOverrunError):
            raise _Ended("garbage", f"a line longer than {LINE_LIMIT >> 10} KiB") from None

    async def ended(self) -> _Ended:
        """Why the session ended, once ssh has exited and its stderr is read."""
        status = await self.proc.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._drain, 2)
        kind, reason = classify(status, self.stderr.decode("utf-8", "replace"))
        return _Ended(kind, reason)

    async def stop(self) -> None:
        if self.proc.returncode is None:
            # os.kill, not Process.kill: Popen.send_signal polls first and may reap a child that has just exited
            # (a mux client whose master went), which leaves asyncio's own watcher "Unknown child process". The
            # pid cannot be reused before that watcher reaps it.
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()
        self._drain.cancel()


async def _lines_until(p: _Proc, mark: str, limit: int, too_much: str) -> list[bytes]:
    """The lines ``p`` writes before the line ``mark`` (which is read and dropped); a session that ends first ends
    with its reason, one that writes more than ``limit`` bytes first as garbage (``too_much`` says what)."""
    lines: list[bytes] = []
    size = 0
    end = mark.encode()
    while True:
        line = await p.readline()
        if not line:
            raise await p.ended()
        if line.strip() == end:
            return lines
        size += len(line)
        if size > limit:
            raise _Ended("garbage", too_much)
        lines.append(line)


class HostReader:
    """Reads ``host`` until cancelled, publishing its node (with a fault while the link is down)."""

    def __init__(
        self, host: str, settings: SshSettings, publish: Publish, clock: Callable[[], float] = time.time
    ) -> None:
        self.host = host
        self.settings = settings
        self.publish = publish
        self.clock = clock
        self.node = NodeSnapshot(host, fault=NodeFault("connecting", "", clock()))
        self.failures = 0
        self.last_values = 0.0
        self.sessions = 0
        self._had_data = False
        self._rows = ValueRows(host)
        self._detail_node: NodeSnapshot | None = None
        publish(host, self.node)

    # -- publishing --------------------------------------------------------------------------------------------
    def _show(self, node: NodeSnapshot, clean: bool = False) -> None:
        """Publish ``node``; ``clean``: its strings are already sanitised (a detail node with new values only)."""
        self.node = node if clean else plain_data(node)
        self.publish(self.host, self.node)

    def _fault(self, kind: str, reason: str, since: float | None = None) -> None:
        old = self.node.fault
        if since is None:
            since = old.since if old is not None and old.kind == kind else self.clock()
        base = without_values(self._detail_node) if self._detail_node is not None else NodeSnapshot(self.host)
        self._show(replace(base, fault=NodeFault(kind, sanitise(reason), since)))

    # -- the loop ----------------------------------------------------------------------------------------------
    async def run(self) -> None:
        while True:
            try:
                await self._session()
                kind, reason = "stopped", "the stream ended"
            except _Ended as e:
                kind, reason = e.kind, e.reason
            self.failures = 0 if self._had_data else self.failures + 1
            delay = min(self.settings.retry_max, self.settings.retry_min * 2**self.failures)
            self._fault(kind, f"{reason}; retrying in {delay:g} s")
            await asyncio.sleep(delay)

    async def _spawn(self, command: str, master: bool = False) -> _Proc:
        if master:
            control = self.settings.control_path(self.host)
            if control is not None:  # a socket left by a gputui that was killed: the master could not bind it
                with contextlib.suppress(OSError):
                    os.unlink(control)
        proc = await asyncio.create_subprocess_exec(
            *self.settings.session_argv(self.host, command, master),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
            start_new_session=True,  # a Ctrl-C in the terminal goes to gputui, which stops the sessions itself
        )
        return _Proc(proc)

    async def _session(self) -> bool:
        self.sessions += 1
        self._had_data = False
        self._rows = ValueRows(self.host)
        procs: list[_Proc] = []
        try:
            detail = await self._spawn(detail_command(self.settings.detail), master=True)
            procs.append(detail)
            first = self.settings.connect_timeout + FIRST_ANSWER_S
            try:
                node = await asyncio.wait_for(self._first_detail(detail), first)
            except TimeoutError:
                raise _Ended("unreachable", f"no answer within {first:g} s") from None
            self._took_detail(node)
            values = await self._spawn(values_command(self.settings.interval))
            procs.append(values)
            self.last_values = self.clock()
            tasks = [
                asyncio.ensure_future(self._detail_loop(detail)),
                asyncio.ensure_future(self._values_loop(values)),
                asyncio.ensure_future(self._watch()),
            ]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    exc = t.exception()
                    if exc is not None:
                        raise exc
                raise _Ended("stopped", "the stream ended")
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for p in procs:
                await p.stop()

    # -- detail rounds -----------------------------------------------------------------------------------------
    async def _first_detail(self, p: _Proc) -> NodeSnapshot:
        await self._skip_banner(p)
        return await self._read_detail(p)

    async def _read_detail(self, p: _Proc) -> NodeSnapshot:
        xml = await _lines_until(p, PS_MARK, MAX_XML_BYTES, f"an XML document over {MAX_XML_BYTES >> 20} MiB")
        ps_lines = await _lines_until(p, END_MARK, MAX_PS_BYTES, f"a process list over {MAX_PS_BYTES >> 20} MiB")
        ps = [line.decode("utf-8", "replace").rstrip("\n") for line in ps_lines]
        try:
            return parse_detail(self.host, b"".join(xml), ps)
        except SourceError as e:
            raise _Ended("garbage", str(e).removeprefix(f"{self.host}: ")) from None

    def _took_detail(self, node: NodeSnapshot) -> None:
        node = plain_data(node)
        old = self._detail_node
        self._detail_node = node
        self._rows.expected = len(node.gpus)
        if old is not None and self.node.fault is None:
            # keep the last values until the next row: the detail document's own are older
            node = with_values(node, [g for g in self.node.gpus])
        self._had_data = True
        self._show(node, clean=True)

    async def _skip_banner(self, p: _Proc) -> None:
        """Drop what comes before the start marker: a login shell's own output (a banner, a message of the day)."""
        await _lines_until(
            p, START_MARK, MAX_BANNER_BYTES, f"over {MAX_BANNER_BYTES >> 10} KiB of output before nvidia-smi's"
        )

    async def _detail_loop(self, p: _Proc) -> None:
        while True:
            self._took_detail(await self._read_detail(p))

    # -- value rows --------------------------------------------------------------------------------------------
    async def _values_loop(self, p: _Proc) -> None:
        await self._skip_banner(p)
        while True:
            line = await p.readline()
            if not line:
                raise await p.ended()
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                gpus = self._rows.add(text)
            except SourceError as e:
                raise _Ended("garbage", str(e)) from None
            if gpus is not None and self._detail_node is not None:
                self.last_values = self.clock()
                self.failures = 0
                base = self.node if self.node.fault is None else self._detail_node
                self._show(replace(with_values(base, gpus), fault=None), clean=True)

    async def _watch(self) -> None:
        """Marks the host stalled while rows stop coming (a slow or hung host); they clear it when they resume."""
        while True:
            await asyncio.sleep(min(1.0, self.settings.stall_s / 2))
            quiet = self.clock() - self.last_values
            if quiet > self.settings.stall_s and (self.node.fault is None or self.node.fault.kind != "stalled"):
                self._fault("stalled", f"no values for over {self.settings.stall_s:g} s", self.last_values)
