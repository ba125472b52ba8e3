"""History backfill: every frame of a replay (a gputui recording, an nvidia-smi log) as OpenMetrics text with
timestamps, for ``promtool tsdb create-blocks-from openmetrics``.

OpenMetrics wants a family's samples together and, inside it, each series' samples together in time order,
while frames give one sample of every series at a time. The frames are read once and their samples go to a
temporary SQLite table, which hands them back grouped (family, series, time) without holding a long recording
in memory. The file is written next to the destination and renamed into place, so a failed run leaves nothing
half-written, and an existing file is never replaced.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gputui.export.attribution import from_events
from gputui.export.families import families
from gputui.export.frame import Frame
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


class _Spool:
    """Samples by (family, series, frame) in a temporary database."""

    def __init__(self, directory: str) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix=".gputui-backfill-", dir=directory)
        self.db = sqlite3.connect(os.path.join(self._dir.name, "spool.db"))
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.execute("CREATE TABLE s (fam INTEGER, series INTEGER, frame INTEGER, val TEXT)")
        self.families: dict[str, tuple[int, str]] = {}  # name -> (id, header)
        self.series: dict[tuple[int, str], int] = {}  # (family id, label text) -> id
        self.labels: list[str] = []  # series id -> label text

    def add(self, name: str, doc: str, frame: int, ts: str, series: list[str]) -> None:
        fam = self.families.get(name)
        if fam is None:
            fam = self.families[name] = (len(self.families), _header(name, doc))
        rows = []
        for s in series:
            labels, _, value = s.rpartition(" ")  # a value has no space; label values may
            key = (fam[0], labels)
            sid = self.series.get(key)
            if sid is None:
                sid = self.series[key] = len(self.labels)
                self.labels.append(labels)
            rows.append((fam[0], sid, frame, f"{value} {ts}"))
        self.db.executemany("INSERT INTO s VALUES (?, ?, ?, ?)", rows)

    def write(self, out) -> None:  # type: ignore[no-untyped-def]
        names = {fid: (name, header) for name, (fid, header) in self.families.items()}
        self.db.execute("CREATE INDEX o ON s (fam, series, frame)")
        current = None
        for fid, sid, val in self.db.execute("SELECT fam, series, val FROM s ORDER BY fam, series, frame"):
            name, header = names[fid]
            if fid != current:
                out.write(header)
                current = fid
            out.write(f"{name}{self.labels[sid]} {val}\n")

    def close(self) -> None:
        self.db.close()
        self._dir.cleanup()


def write_openmetrics(replay: ReplaySource, path: Path) -> BackfillStats:
    """Write every frame of ``replay`` to ``path`` (which must not exist yet)."""
    store = replay.store
    events = sorted(store.events, key=lambda e: e.timestamp)
    directory = str(path.parent) if str(path.parent) else "."
    spool = _Spool(directory)
    samples = seen = 0
    try:
        for i in range(store.frame_count):
            snap = store.frame(i)
            t = store.timestamp(i)
            while seen < len(events) and events[seen].timestamp <= t:
                seen += 1
            ts = repr(float(t))
            for fam in families(Frame(snap, from_events(events[:seen]), t)):
                if fam.series:
                    spool.add(fam.name, fam.doc, i, ts, fam.series)
                    samples += len(fam.series)
        _assemble(path, spool)
    finally:
        spool.close()
    n = store.frame_count
    first, last = (store.timestamp(0), store.timestamp(n - 1)) if n else (None, None)
    return BackfillStats(n, samples, len(spool.families), first, last)


def _assemble(path: Path, spool: _Spool) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # an ordinary new file, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            spool.write(out)
            out.write("# EOF\n")
        if path.exists():  # appeared while we wrote: never overwrite what someone else put there
            raise FileExistsError(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
