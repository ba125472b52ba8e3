"""Importers for the nvidia-smi logs operators already keep: `-q -x` XML, `-q` text, `--query-gpu` CSV
and nvidia_gpu_exporter capture bundles, each read into a list of ClusterSnapshot frames of one node.

Times in these logs carry no time zone and are read as UTC.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gputui.core.errors import SourceError
from gputui.core.model import ClusterSnapshot
from gputui.sources.nvsmi.capture import frames_from_capture
from gputui.sources.nvsmi.lines import bounded_lines, open_text
from gputui.sources.nvsmi.mapping import node_from_tree
from gputui.sources.nvsmi.query_csv import frames_from_csv
from gputui.sources.nvsmi.query_text import iter_text_documents
from gputui.sources.nvsmi.sniff import read_head, sniff_nvsmi
from gputui.sources.nvsmi.tree import Node
from gputui.sources.nvsmi.xml_stream import iter_xml_documents

__all__ = ["NvsmiLog", "load_nvsmi_log", "sniff_nvsmi"]

EXPECTED = "expected `nvidia-smi -q -x` XML, `nvidia-smi -q` text or `--query-gpu` CSV"

_SOURCE_NAMES = {
    "xml": "nvidia-smi -q -x log",
    "query-text": "nvidia-smi -q log",
    "csv": "nvidia-smi --query-gpu log",
}


@dataclass
class NvsmiLog:
    """The frames read from one log file, its kind, and what was dropped on the way (a truncated tail)."""

    frames: list[ClusterSnapshot]
    kind: str  # 'xml', 'query-text', 'csv' or 'capture'
    path: str
    warnings: list[str] = field(default_factory=list)


def load_nvsmi_log(
    path: str | os.PathLike[str], node_name: str | None = None, fields: list[str] | None = None
) -> NvsmiLog:
    """Read an nvidia-smi log into frames (one node, named by the log's hostname, ``node_name`` or the file stem).

    ``fields`` is the `--query-gpu` field list, needed only for a CSV written with `noheader`.
    Raises SourceError with one line naming the file when it cannot be read as such a log.
    """
    label = os.fspath(path)
    p = Path(label)
    try:
        st = p.stat()
    except OSError as e:
        raise SourceError(f"{label}: cannot open ({e.strerror or e})") from None
    if not p.is_file():
        raise SourceError(f"{label}: not a file ({EXPECTED})")
    if st.st_size == 0:
        raise SourceError(f"{label}: empty file ({EXPECTED})")
    kind = sniff_nvsmi(label)
    if kind is None and fields and read_head(label) is not None:
        kind = "csv"  # a header-less CSV the caller vouches for
    if kind is None:
        raise SourceError(f"{label}: not an nvidia-smi log ({EXPECTED}; a header-less CSV needs --fields)")
    with _collector_paused():
        frames, warnings = _load(label, p, kind, node_name or p.stem, st.st_mtime, fields)
    return NvsmiLog(frames=frames, kind=kind, path=label, warnings=warnings)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a log loads.

    A day of polls is millions of small immutable objects without cycles; the collector's full
    passes over them would cost as much time as the parsing itself.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load(
    label: str, p: Path, kind: str, name: str, mtime: float, fields: list[str] | None
) -> tuple[list[ClusterSnapshot], list[str]]:
    warnings: list[str] = []
    if kind == "xml":
        trees = iter_xml_documents(label, label, warnings)
        frames = _frames_from_trees(trees, name, p.name, kind, mtime, warnings, label)
    elif kind == "query-text":
        with open_text(label, label) as f:
            trees = iter_text_documents(bounded_lines(f, label), label, warnings)
            frames = _frames_from_trees(trees, name, p.name, kind, mtime, warnings, label)
        if not frames:
            cut = f" ({warnings[-1].partition(': ')[2]})" if warnings else ""
            raise SourceError(f"{label}: no complete GPU section found in the `nvidia-smi -q` text{cut}")
    elif kind == "csv":
        with open_text(label, label) as f:
            frames = frames_from_csv(
                bounded_lines(f, label),
                label=label,
                node_name=name,
                source=f"{_SOURCE_NAMES[kind]} {p.name}",
                mtime=mtime,
                warnings=warnings,
                fields=fields,
            )
    else:
        with open_text(label, label) as f:
            frames = frames_from_capture(
                bounded_lines(f, label), label=label, node_name=name, name=p.name, mtime=mtime, warnings=warnings
            )
        if not frames:
            cut = f" ({warnings[-1].partition(': ')[2].partition(';')[0]})" if warnings else ""
            raise SourceError(f"{label}: capture has no complete `nvidia-smi -q` or `--query-gpu` section{cut}")
    return frames, warnings


def _frames_from_trees(
    trees: Iterable[Node], node_name: str, file_name: str, kind: str, mtime: float, warnings: list[str], label: str
) -> list[ClusterSnapshot]:
    """One frame per document; documents without a timestamp are placed one second apart before the mtime
    (said once in ``warnings``)."""
    source = f"{_SOURCE_NAMES[kind]} {file_name}"
    fmt = "xml" if kind == "xml" else "text"
    timed: list[tuple[float | None, ClusterSnapshot]] = []
    for root in trees:
        t, node = node_from_tree(root, node_name, fmt=fmt)
        timed.append((t, ClusterSnapshot(timestamp=0.0, nodes=(node,), source=source)))
    n = len(timed)
    untimed = sum(t is None for t, _ in timed)
    if untimed:
        what = "no timestamp" if untimed == n else f"{untimed} of its {n} documents have no timestamp"
        warnings.append(f"{label}: {what}; timed from the file's modification time, one second apart")
    return [snap.with_time(t if t is not None else mtime - (n - 1 - i)) for i, (t, snap) in enumerate(timed)]
