"""Agentless SSH telemetry: each host's GPUs read over the system OpenSSH client with nvidia-smi alone."""

from __future__ import annotations

from gputui.sources.ssh.fleet import SshSource
from gputui.sources.ssh.hosts import expand_hosts
from gputui.sources.ssh.settings import SshSettings

__all__ = ["SshSettings", "SshSource", "expand_hosts"]
