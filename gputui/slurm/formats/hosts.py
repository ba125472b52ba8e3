"""Slurm host lists (``node[01-04,07]``) read from Slurm's own output, with its errors as SlurmError."""

from __future__ import annotations

from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.hostlist import compress_hostlist, expand_hostlist
from gputui.slurm.errors import SlurmError


def expand(text: str | None, what: str = "node list") -> tuple[str, ...]:
    """The names of a host list; None, empty and ``(null)`` give ()."""
    if text is None or text.strip() in ("", "(null)", "None", "N/A"):
        return ()
    try:
        return expand_hostlist(text.strip(), what)
    except RequestError as e:
        raise SlurmError(f"cannot read Slurm's {e}") from None


__all__ = ["compress_hostlist", "expand"]
