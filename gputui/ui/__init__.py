"""The Textual dashboard; ``create_app`` is the entry point for the CLI and the tests.

Both names load on first use, so that a module of the package (gputui.ui.collector) can be imported before Textual.
Whatever of the package is imported first, asyncio is loaded here without OpenSSL (see render/process_memory.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gputui.ui.render.process_memory import import_asyncio_without_tls

import_asyncio_without_tls()  # before Textual imports asyncio: no OpenSSL in the dashboard (see that module)

if TYPE_CHECKING:
    from gputui.ui.app import GputuiApp
    from gputui.ui.factory import create_app

__all__ = ["GputuiApp", "create_app"]


def __getattr__(name: str) -> object:
    if name == "GputuiApp":
        from gputui.ui.app import GputuiApp

        return GputuiApp
    if name == "create_app":
        from gputui.ui.factory import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
