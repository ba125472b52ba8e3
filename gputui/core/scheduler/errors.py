"""The one error a scheduler user can cause: a request that cannot be understood or never satisfied."""

from __future__ import annotations

from gputui.core.errors import GputuiError


class RequestError(GputuiError):
    """A job request is malformed, contradictory, or asks for what no node has; the message names the option."""
