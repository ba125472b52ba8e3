"""`ssh:HOSTS` and `--telemetry ssh`: the SSH source's settings from the config file, its private socket folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gputui.core.errors import GputuiError, SourceError
from gputui.sources.base import Source
from gputui.sources.ssh import SshSettings, SshSource, expand_hosts
from gputui.sources.ssh.settings import MAX_SOCKET_PATH

SOCKET_DIR_MAX = MAX_SOCKET_PATH - 20  # room for "/cm-" and the host's digest


def ssh_settings(interval: float | None = None) -> SshSettings:
    """Settings from the config file's [ssh] table; connection sharing in the state dir's ``ssh`` folder (0700)."""
    from gputui.cli.config_file import load_config
    from gputui.statedir import StateDirError, make_private_dir, state_dir_path

    config, _ = load_config()  # a broken file was already reported once, at start
    folder = state_dir_path() / "ssh"
    if len(os.fspath(folder)) > SOCKET_DIR_MAX:
        # a unix socket's path is short (about 100 bytes): a deep state dir shares from a private folder in /tmp
        folder = Path(tempfile.gettempdir()) / f"gputui-{os.getuid()}" / "ssh"
    control: Path | None
    try:
        control = make_private_dir(folder)
    except StateDirError:
        control = None  # no sharing: each session its own connection
    extra: dict[str, object] = {}
    if config.ssh_connect_timeout is not None:
        extra["connect_timeout"] = config.ssh_connect_timeout
    if config.ssh_detail is not None:
        extra["detail"] = config.ssh_detail
    ssh_config = os.path.expanduser(config.ssh_config) if config.ssh_config else None
    if ssh_config is not None and not os.path.isfile(ssh_config):
        raise SourceError(f"[ssh] config {ssh_config}: no such file")
    return SshSettings(
        interval=config.ssh_values or interval or 1.0,
        config=ssh_config,
        control_dir=control,
        **extra,  # type: ignore[arg-type]
    )


def open_ssh(spec: str | None, interval: float | None = None) -> Source:
    """The SSH source over ``spec`` (``gpu01,gpu[02-08]``), or the config's ``[hosts] ssh`` list when None."""
    from gputui.cli.config_file import load_config

    if spec is None or not spec.strip():
        hosts = list(load_config()[0].ssh_hosts)
        if not hosts:
            raise GputuiError("ssh: no hosts: give them (ssh:gpu01,gpu02 or ssh:gpu[01-16]) or list them in the "
                              "config file ([hosts] ssh = [...])")  # fmt: skip
    else:
        hosts = [spec]
    return SshSource(expand_hosts(hosts), ssh_settings(interval))


def open_slurm_ssh(conf_path: str | None, telemetry: str, interval: float | None) -> Source:
    """The Slurm source whose nodes' GPUs are read over SSH (``--telemetry ssh``)."""
    if telemetry != "ssh":
        raise GputuiError(f"--telemetry {telemetry}: unknown (known: ssh)")
    from gputui.slurm import SlurmSource

    settings = ssh_settings(interval)
    return SlurmSource(conf_path=conf_path, nvml=None, telemetry=lambda hosts: SshSource(hosts, settings))
