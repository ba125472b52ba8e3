"""The dashboard's process loads no OpenSSL (asyncio imported without ssl, hashlib only when used), ssl still
imports for whoever asks, and freed heap pages can be handed back."""

from __future__ import annotations

import platform
import subprocess
import sys

from gputui.ui.render.process_memory import release_free_memory

CODE = """
import sys
import gputui.ui, gputui.cli.ui_cmd, gputui.cli.job_session, gputui.jobs.service
import asyncio.base_events, asyncio.sslproto
print(sorted(m for m in ("ssl", "_ssl", "hashlib", "_hashlib") if m in sys.modules))
print(asyncio.base_events.ssl, asyncio.sslproto.ssl)
import ssl
print(ssl.PROTOCOL_TLS_CLIENT is not None)
"""


def test_the_dashboard_loads_no_openssl_and_ssl_still_imports_afterwards() -> None:
    run = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["[]", "None None", "True"]


def test_an_asyncio_loaded_before_is_left_as_it_is() -> None:
    code = "import asyncio, sys, gputui.ui; print(asyncio.base_events.ssl is not None, 'ssl' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"]


def test_free_pages_are_handed_back_where_glibc_can() -> None:
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert release_free_memory() is glibc
