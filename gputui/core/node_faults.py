"""A node's telemetry fault as the one line every view and command shows: ``unreachable since 12:03:14 UTC: ...``."""

from __future__ import annotations

import time

from gputui.core.model import NodeFault

#: how each fault kind reads in the line
KIND_WORDS = {
    "connecting": "connecting",
    "unreachable": "unreachable",
    "auth": "auth refused",
    "host-key": "host key refused",
    "no-nvidia-smi": "no nvidia-smi",
    "stopped": "stream stopped",
    "garbage": "garbage from host",
    "stalled": "stalled",
}


def fault_words(fault: NodeFault) -> str:
    """The short state: 'unreachable', 'auth refused', ..."""
    return KIND_WORDS.get(fault.kind, fault.kind)


def fault_line(fault: NodeFault) -> str:
    """``kind since HH:MM:SS UTC: reason`` (the reason as given; callers sanitise what they print)."""
    since = time.strftime("%H:%M:%S", time.gmtime(fault.since))
    head = f"{fault_words(fault)} since {since} UTC"
    return f"{head}: {fault.reason}" if fault.reason else head
