"""A Linux terminal driver whose input thread sleeps until input comes, instead of waking ten times a second.

Textual's LinuxDriver reads keys on a thread that waits at most 0.1 s at a time, to notice the
end of the app and to time out a lone Escape. Waking a thread costs about 0.1-0.2 ms of CPU on a
virtual machine, so those wake-ups alone cost a dashboard refreshing once a second almost 0.2 %
of a core. Here the thread waits for input or for a byte on a pipe written when the app stops,
and uses a timeout only while the parser waits to tell Escape from the start of a sequence.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING, Any

from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver


class _WakingEvent(threading.Event):
    """An Event that also writes a byte to a pipe when set, waking a thread waiting in select."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()  # before the byte: the woken thread must find the flag set
        with contextlib.suppress(OSError):  # the pipe is closed: the driver is gone, so is the thread
            os.write(self._wake_fd, b"x")


class QuietLinuxDriver(LinuxDriver):
    """LinuxDriver with an input thread that blocks until input, stop, or the Escape delay runs out."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None):
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self.exit_event = _WakingEvent(self._wake_w)

    def _drain_wake_pipe(self) -> None:
        try:
            while os.read(self._wake_r, 512):
                pass
        except (BlockingIOError, OSError):
            pass

    def run_input_thread(self) -> None:
        """Wait for input and dispatch events (Textual's loop, without its 0.1 s polling)."""
        selector = selectors.SelectSelector()  # as Textual: epoll refuses some fds (/dev/null, regular files)
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        fileno = self.fileno
        reading = True

        def timeout() -> float | None:
            due = parser._timeout_time  # set while an Escape may still start a sequence
            return None if due is None else max(0.0, due - get_time())

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            nonlocal reading
            for key, _mask in ready:
                if key.fd != fileno:
                    self._drain_wake_pipe()
                    continue
                data = decode(os.read(fileno, 4096), final=final)
                if not data:  # end of input (a closed pipe, /dev/null): no more keys, and no busy loop on it
                    if reading:
                        selector.unregister(fileno)
                        reading = False
                    break
                for event in parser.feed(data):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            self._drain_wake_pipe()  # a byte left from an earlier stop (suspend and resume)
            while not self.exit_event.is_set():
                process(selector.select(timeout()))
            if reading:
                selector.unregister(fileno)
                reading = False
            process(selector.select(0), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass

    def close(self) -> None:
        super().close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


def quiet_driver(driver_class: type[Driver]) -> type[Driver]:
    """QuietLinuxDriver where Textual would use its LinuxDriver; any other driver (Windows, web, tests) unchanged."""
    return QuietLinuxDriver if driver_class is LinuxDriver else driver_class
