"""Helpers for tests against real services (Prometheus, promtool, Chromium): find the program, or skip, or in CI
(CI=true) fail, since there a missing service is a broken setup; free ports; waiting for a condition."""

from __future__ import annotations

import os
import shutil
import socket
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(why: str) -> None:
    """Skip (on a developer's machine) or fail (in CI) for a service that cannot be had."""
    if in_ci():
        pytest.fail(f"{why} (CI=true: a service the tests need must be there; see .ci/)")
    pytest.skip(why)


def program(name: str, setup: str) -> str:
    path = shutil.which(name)
    if path is None:
        unavailable(f"{name} is not installed (run {setup})")
    assert path is not None
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], T | None], timeout: float = 30.0, every: float = 0.2) -> T:
    """Poll ``check`` until it returns something other than None; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)
