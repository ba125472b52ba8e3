"""Placement policies by name; one small module each."""

from __future__ import annotations

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.policies.best_fit import BestFit
from gputui.core.scheduler.policies.fgd_auto import FgdAuto
from gputui.core.scheduler.policies.fgd_cpu import FgdCpu
from gputui.core.scheduler.policies.fragmentation import Fragmentation
from gputui.core.scheduler.policies.slurm import Slurm
from gputui.core.scheduler.policies.spread import Spread

POLICIES: dict[str, type] = {
    "best-fit": BestFit,
    "spread": Spread,
    "fragmentation": Fragmentation,
    "slurm": Slurm,
    "fgd-cpu": FgdCpu,
    "fgd-auto": FgdAuto,
}


def get_policy(name: str) -> Policy:
    """A policy by name; an unknown name is a user error naming the choices."""
    cls = POLICIES.get(name)
    if cls is None:
        raise RequestError(f"unknown placement policy {name!r} (choose {', '.join(POLICIES)})")
    return cls()


__all__ = ["POLICIES", "Policy", "get_policy"]
