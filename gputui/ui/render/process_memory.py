"""What keeps the dashboard process's resident memory down beyond its own data: asyncio without OpenSSL, and
freed heap pages handed back to the system.

**asyncio without TLS.** asyncio imports ``ssl`` when it loads (base_events, selector_events, sslproto:
``try: import ssl``), and ``ssl`` loads OpenSSL's libcrypto and libssl: about 4 MiB of resident memory (Textual's
app module imported: 32.4 MiB with ssl, 28.2 MiB without), in a process that opens no TLS connection (the
dashboard's sources are NVML, files, subprocesses and SSH, none of them TLS through asyncio).
``import_asyncio_without_tls`` imports asyncio while ``import ssl`` fails, which asyncio takes for a Python built
without TLS, then lets ``ssl`` import normally again: code that needs it later still gets it; only asyncio's own
TLS (``loop.create_connection(ssl=...)``) then says "stdlib ssl module not available". It does nothing when
asyncio or ssl is loaded already (a test runner, a host application).

**Freed pages back.** Python's small objects live in its own arenas, everything larger in glibc's heap; what a
frame frees there stays resident in free chunks, which glibc returns to the system only from the top of the
heap. ``release_free_memory`` asks glibc (``malloc_trim``) to return every free page, wherever it lies: after
the first frame (start-up's temporaries: CSS parsing, the first layout), at poll ``TRIM_FIRST`` (what opened
after the first frame) and then every ``TRIM_EVERY`` polls. It
costs well under a millisecond on the dashboard's heap; elsewhere than glibc it does nothing.

Measured with ``python -m gputui.bench rss_peers`` and ``python -m gputui.bench rss`` (docs/performance.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

#: polls between two releases of free heap pages (a minute at a replay's 0.5 s, two at a 1 s refresh), the first
#: at poll TRIM_FIRST, once what opens after the first frame (the job service) has opened
TRIM_EVERY = 120
TRIM_FIRST = 10


def import_asyncio_without_tls() -> bool:
    """Import asyncio without ``ssl`` if neither is loaded yet; True when it did."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return False
    sys.modules["ssl"] = None  # type: ignore[assignment]  # `import ssl` raises ImportError while this is here
    try:
        import asyncio  # noqa: F401
    finally:
        if sys.modules.get("ssl", 0) is None:
            del sys.modules["ssl"]
    return True


def _malloc_trim() -> Callable[[], object] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without it (musl)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


_trim: list[Callable[[], object] | None] = []


def release_free_memory() -> bool:
    """Hand the heap's free pages back to the system (glibc's malloc_trim); False where there is no such call."""
    if not _trim:
        _trim.append(_malloc_trim())
    trim = _trim[0]
    if trim is None:
        return False
    trim()
    return True
