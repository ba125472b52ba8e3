"""History backfill: every frame of a replay (a gputui recording, an nvidia-smi log) as OpenMetrics text with
timestamps, for ``promtool tsdb create-blocks-from openmetrics``.

OpenMetrics wants each family's samples together, so each family's lines go to a temporary file of their own
while the frames are read once; the output is then put together family by family and ends with ``# EOF``.
It is written next to the destination and renamed into place, so a failed run leaves nothing half-written.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from gputui.export.attribution import from_events
from gputui.export.families import families
from gputui.export.frame import Frame
from gputui.export.text_format import openmetrics_lines
from gputui.sources.replay import ReplaySource


@dataclass(frozen=True, slots=True)
class BackfillStats:
    frames: int
    samples: int
    families: int
    start: float | None
    end: float | None


def _header(name: str, doc: str) -> str:
    doc = doc.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    return f"# HELP {name} {doc}\n# TYPE {name} gauge\n"


def write_openmetrics(replay: ReplaySource, path: Path) -> BackfillStats:
    """Write every frame of ``replay`` to ``path`` (which must not exist yet)."""
    store = replay.store
    events = sorted(store.events, key=lambda e: e.timestamp)
    parts: dict[str, tuple[str, IO[str]]] = {}
    samples = 0
    seen = 0
    with contextlib.ExitStack() as stack:
        for i in range(store.frame_count):
            snap = store.frame(i)
            t = store.timestamp(i)
            while seen < len(events) and events[seen].timestamp <= t:
                seen += 1
            for fam in families(Frame(snap, from_events(events[:seen]), t)):
                if not fam.series:
                    continue
                if fam.name not in parts:
                    f = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
                    parts[fam.name] = (_header(fam.name, fam.doc), f)
                parts[fam.name][1].write(openmetrics_lines(fam, t))
                samples += len(fam.series)
        _assemble(path, parts)
    n = store.frame_count
    first, last = (store.timestamp(0), store.timestamp(n - 1)) if n else (None, None)
    return BackfillStats(n, samples, len(parts), first, last)


def _assemble(path: Path, parts: dict[str, tuple[str, IO[str]]]) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # an ordinary new file, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for header, f in parts.values():
                out.write(header)
                f.seek(0)
                while chunk := f.read(1 << 20):
                    out.write(chunk)
            out.write("# EOF\n")
        if path.exists():  # appeared while we wrote: never overwrite what someone else put there
            raise FileExistsError(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
