"""The cluster's name (slurm.conf ``ClusterName``): read from the configuration file, else asked of slurmctld."""

from __future__ import annotations

import re
from pathlib import Path

from gputui.slurm.commands import SlurmClient
from gputui.slurm.errors import SlurmError

#: Where Slurm looks for slurm.conf when SLURM_CONF is not set (Debian's package, upstream's default, older ones).
DEFAULT_CONF_PATHS = ("/etc/slurm/slurm.conf", "/usr/local/etc/slurm.conf", "/etc/slurm-llnl/slurm.conf")
_MAX_CONF_BYTES = 4 << 20
_NAME = re.compile(r"^\s*ClusterName\s*=\s*([^\s#]+)", re.IGNORECASE | re.MULTILINE)
_SHOWN = re.compile(r"^\s*ClusterName\s*=\s*(\S+)", re.MULTILINE)


def name_from_conf(path: str | Path) -> str | None:
    """``ClusterName=`` of a slurm.conf, read as text (nothing in it is run or included); None when absent."""
    try:
        with open(path, "rb") as f:
            text = f.read(_MAX_CONF_BYTES).decode(errors="replace")
    except OSError:
        return None
    m = _NAME.search(text)
    return m.group(1) if m else None


def cluster_name(client: SlurmClient) -> str | None:
    """The name, from ``$SLURM_CONF`` (or the default places), else from ``scontrol show config``; None if neither."""
    paths = [client.conf_path] if client.conf_path else list(DEFAULT_CONF_PATHS)
    for p in paths:
        if p and (name := name_from_conf(p)):
            return name
    try:
        m = _SHOWN.search(client.output(("scontrol", "show", "config")))
    except SlurmError:
        return None
    return m.group(1) if m else None
