"""The Textual dashboard; ``create_app`` is the entry point for the CLI and the tests."""

from gputui.ui.render.process_memory import import_asyncio_without_tls

import_asyncio_without_tls()  # before Textual imports asyncio: no OpenSSL in the dashboard (see that module)

from gputui.ui.app import GputuiApp  # noqa: E402
from gputui.ui.factory import create_app  # noqa: E402

__all__ = ["GputuiApp", "create_app"]
