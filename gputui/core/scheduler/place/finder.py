"""The one entry point for placement: dispatch a prepared request to the placer of its kind."""

from __future__ import annotations

from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.place import cpu as place_cpu
from gputui.core.scheduler.place import mig as place_mig
from gputui.core.scheduler.place import mps as place_mps
from gputui.core.scheduler.place import share as place_share
from gputui.core.scheduler.place import whole as place_whole
from gputui.core.scheduler.place.placement import Ask
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.state import ClusterState


def find_allocation(state: ClusterState, ask: Ask, policy: Policy) -> Allocation | None:
    """An allocation for ``ask`` on the free resources now, or None; never changes the state."""
    kind = ask.request.kind
    if kind == "mig":
        return place_mig.place(state, ask, policy)
    if kind == "mps":
        return place_mps.place(state, ask, policy)
    if kind == "cpu":
        return place_cpu.place(state, ask, policy)
    if kind in ("shard", "milli"):
        return place_share.place(state, ask, policy)
    if kind == "device":
        return place_whole.place_device(state, ask)
    if kind == "nodes" or ask.request.exclusive:
        return place_whole.place_exclusive(state, ask, policy)
    return place_whole.place_count(state, ask, policy)
