"""The quiet terminal driver: keys (a lone Escape too) still arrive, the app still quits, and an idle app's
input thread does not wake up (Textual's own driver wakes it ten times a second)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import time

import pytest

from gputui.bench.ui_cpu import cpu_seconds, thread_counts
from gputui.ui.render.quiet_driver import QuietLinuxDriver, quiet_driver

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the quiet driver replaces Textual's Linux driver")

APP = """
import sys
from textual.app import App
from gputui.ui.render.quiet_driver import QuietLinuxDriver

class Keys(App):
    def on_mount(self):
        print("ready", flush=True, file=sys.__stdout__)

    def on_key(self, event):
        print("key", event.key, flush=True, file=sys.__stdout__)
        if event.key == "q":
            self.exit()

Keys(driver_class=QuietLinuxDriver).run()
"""


def _wakes(pid: int) -> int:
    """Voluntary context switches of all threads of ``pid``: each is the thread going to sleep and waking."""
    return sum(sleeps for _, sleeps in thread_counts(pid).values())


def _read_until(fd: int, marker: bytes, seen: bytearray, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while marker not in seen:
        assert time.monotonic() < deadline, f"no {marker!r} in {bytes(seen)[-300:]!r}"
        try:
            seen.extend(os.read(fd, 65536))
        except BlockingIOError:
            time.sleep(0.01)


def _start(keys_from_terminal: bool) -> tuple[int, int, subprocess.Popen[bytes]]:
    """The key-echo app on a pseudo-terminal (its input too, or /dev/null); returns the terminal's master end,
    the read end of the app's report pipe, and the process."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out_r, out_w = os.pipe()
    stdin = slave if keys_from_terminal else subprocess.DEVNULL
    cmd = [sys.executable, "-c", APP]
    child = subprocess.Popen(cmd, stdin=stdin, stdout=out_w, stderr=slave, start_new_session=True)
    os.close(slave)
    os.close(out_w)
    os.set_blocking(out_r, False)
    os.set_blocking(master, False)
    return master, out_r, child


def test_keys_arrive_escape_times_out_and_an_idle_input_thread_sleeps() -> None:
    master, out_r, child = _start(keys_from_terminal=True)
    seen = bytearray()
    try:
        _read_until(out_r, b"ready", seen)
        time.sleep(0.3)  # let start-up work settle
        before = _wakes(child.pid)
        time.sleep(1.0)
        idle_wakes = _wakes(child.pid) - before
        os.write(master, b"a")
        _read_until(out_r, b"key a", seen)
        os.write(master, b"\x1b")  # a lone Escape: only the parser's timeout can tell it from a sequence
        _read_until(out_r, b"key escape", seen)
        os.write(master, b"q")
        assert child.wait(timeout=5) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(master)
        os.close(out_r)
    # Textual's LinuxDriver alone would wake about ten times in that second.
    assert idle_wakes <= 3, f"{idle_wakes} wake-ups in one idle second"


def test_only_the_linux_driver_is_replaced() -> None:
    from textual.drivers.headless_driver import HeadlessDriver
    from textual.drivers.linux_driver import LinuxDriver

    assert quiet_driver(LinuxDriver) is QuietLinuxDriver
    assert quiet_driver(HeadlessDriver) is HeadlessDriver


def test_input_at_its_end_is_let_go_not_read_in_a_busy_loop() -> None:
    """With stdin at its end (/dev/null, a closed pipe), the input thread stops reading instead of spinning."""
    master, out_r, child = _start(keys_from_terminal=False)
    seen = bytearray()
    try:
        _read_until(out_r, b"ready", seen)
        time.sleep(0.3)
        before = cpu_seconds(child.pid)
        time.sleep(1.0)
        busy = cpu_seconds(child.pid) - before
        assert child.poll() is None  # still running: the end of input is not an error
    finally:
        child.kill()
        child.wait()
        os.close(master)
        os.close(out_r)
    assert busy < 0.3, f"{busy:.2f} s of CPU in one idle second"
