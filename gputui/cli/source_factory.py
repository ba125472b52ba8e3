"""Turn what the user typed (nothing, a file, 'nvml', 'demo') into a source, and say which it is."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gputui.core.clock import Clock
from gputui.core.errors import GputuiError, NvmlUnavailable, SourceError
from gputui.core.model import ClusterSnapshot
from gputui.core.timefmt import parse_time
from gputui.resources import demo_recording
from gputui.sources.base import MemoryFrames, Source
from gputui.sources.replay import ReplaySource

if TYPE_CHECKING:
    from pathlib import Path

SOURCE_HELP = (
    "a recording (.gtrec), an nvidia-smi log (-q -x XML, -q text, --query-gpu CSV), 'nvml', 'demo', "
    "'slurm' / 'slurm:PATH/TO/slurm.conf', or 'ssh:HOST1,HOST2' / 'ssh:gpu[01-16]' / 'ssh' (the config's [hosts])"
)


@dataclass
class Opened:
    source: Source
    notice: str | None = None  # one line telling the user what they are looking at, when not obvious


def open_source(
    arg: str | None,
    clock: Clock | None = None,
    fields: list[str] | None = None,
    interval: float | None = None,
    telemetry: str | None = None,
) -> Opened:
    """The source for ``arg``; with no argument, live NVML if a driver answers, else the demo.

    ``fields`` is the `--query-gpu` field list of a header-less CSV log (`--fields`); ``interval`` the poll
    interval a streaming source (SSH) asks its hosts for; ``telemetry`` 'ssh' reads a Slurm cluster's GPUs over
    SSH (`--telemetry ssh`)."""
    if telemetry is not None and not (arg or "").lower().startswith("slurm"):
        raise GputuiError(f"--telemetry {telemetry}: only with the Slurm source (slurm, slurm:PATH)")
    if arg is None:
        try:
            return Opened(open_nvml())
        except NvmlUnavailable as e:
            demo = open_file(demo_recording(), clock, description="bundled demo recording (synthetic)")
            return Opened(demo.source, f"{e}; showing the bundled demo recording instead")
    low = arg.lower()
    if low in ("nvml", "nvml:", "live"):
        return Opened(open_nvml())
    if low == "demo":
        return open_file(demo_recording(), clock, description="bundled demo recording (synthetic)")
    if low == "slurm" or low.startswith("slurm:"):
        conf = arg[len("slurm:") :] if low.startswith("slurm:") else None
        if telemetry is not None:
            from gputui.cli.ssh_open import open_slurm_ssh

            return Opened(open_slurm_ssh(conf or None, telemetry, interval))
        return Opened(open_slurm(conf))
    if low == "ssh" or low.startswith("ssh:"):
        from gputui.cli.ssh_open import open_ssh

        return Opened(open_ssh(arg[len("ssh:") :] if low.startswith("ssh:") else None, interval))
    from pathlib import Path  # here: a live source (the one-shot's default) needs no path

    return open_file(Path(arg), clock, fields=fields)


def snapshot_at(source: Source, at: str | None) -> ClusterSnapshot:
    """One snapshot: a replay's frame at ``at`` (default: its last frame), or a live poll."""
    if isinstance(source, ReplaySource):
        t = source.end_time if at is None else parse_time(at, source.start_time, source.end_time)
        if not source.start_time <= t <= source.end_time:
            from gputui.core.timefmt import utc_text

            raise GputuiError(
                f"--at {at}: outside the recording, which runs from {utc_text(source.start_time)} "
                f"to {utc_text(source.end_time)}"
            )
        return source.seek(t)
    if at is not None:
        raise GputuiError("--at needs a recording or a log; a live source has only the present")
    settle = getattr(source, "settle", None)  # a streaming source (SSH) waits for its hosts' first answers
    if settle is not None:
        settle()
    return source.poll()


def open_nvml() -> Source:
    from gputui.sources.nvml import NvmlSource

    return NvmlSource()


def open_slurm(conf_path: str | None) -> Source:
    """The cluster the Slurm client commands reach (``conf_path``: its slurm.conf, else SLURM_CONF / the default)."""
    from gputui.slurm import SlurmSource

    return SlurmSource(conf_path=conf_path or None)


def open_file(
    path: Path, clock: Clock | None = None, description: str | None = None, fields: list[str] | None = None
) -> Opened:
    """A replay of a gputui recording or of an nvidia-smi log, told apart by their first bytes."""
    name = str(path)
    if not path.exists():
        raise SourceError(f"{name}: no such file")
    if path.is_dir():
        raise SourceError(f"{name}: is a directory; expected {SOURCE_HELP}")
    if not os.access(path, os.R_OK):
        raise SourceError(f"{name}: permission denied")
    from gputui.sources.recording.fileformat import MAGIC  # here: a live one-shot does not need it

    with open(path, "rb") as f:
        head = f.read(len(MAGIC))
    if head == MAGIC:
        from gputui.sources.recording import RecordingReader

        store = RecordingReader(path)
        notice = None
        if store.damaged:
            notice = f"{name}: recording was not closed cleanly; showing its {store.frame_count} complete frames"
            if store.damage:
                notice = f"{name}: recording is damaged; showing its {store.frame_count} intact frames"
        return Opened(ReplaySource(store, description or f"recording {path.name}", clock), notice)
    from gputui.sources.nvsmi import load_nvsmi_log, sniff_nvsmi

    if sniff_nvsmi(path) is None and not fields:
        raise SourceError(
            f"{name}: not a gputui recording or nvidia-smi log (expected {SOURCE_HELP}; "
            "a header-less --query-gpu CSV needs --fields)"
        )
    log = load_nvsmi_log(path, fields=fields)
    replay = ReplaySource(MemoryFrames(log.frames), description or f"nvidia-smi log {path.name} ({log.kind})", clock)
    return Opened(replay, "; ".join(log.warnings) or None)
