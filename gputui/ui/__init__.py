"""The Textual dashboard; ``create_app`` is the entry point for the CLI and the tests."""

from gputui.ui.app import GputuiApp
from gputui.ui.factory import create_app

__all__ = ["GputuiApp", "create_app"]
