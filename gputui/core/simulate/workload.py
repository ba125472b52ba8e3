"""Reading a trace: the node list and the pod list of Alibaba's openb format (CSV), checked field by field.

Nodes: ``sn`` (or ``name``), ``cpu_milli``, ``memory_mib``, ``gpu``, ``model``. Pods: ``name``, ``cpu_milli``,
``memory_mib``, ``num_gpu``, ``gpu_milli``, optionally ``gpu_spec`` (a ``|`` list of models) and the times
``creation_time``, ``deletion_time`` (seconds; needed for replays). Anything missing or malformed is a
:class:`TraceError` naming the file, the line and the column.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from gputui.core.errors import GputuiError
from gputui.core.scheduler.policies.frag import TargetShape, typical_shapes
from gputui.core.scheduler.policies.shapes import MILLI, PodShape


class TraceError(GputuiError):
    """A trace file that cannot be used; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class TraceNode:
    name: str
    cpu_milli: int
    mem_mib: int
    gpus: int
    model: str


@dataclass(frozen=True, slots=True)
class TracePod:
    name: str
    shape: PodShape
    created: int | None = None
    deleted: int | None = None
    run_s: int | None = None  # how long it runs once started, where that is known apart from its times (job stores)
    #: the ``gpu_spec`` column as written, empty parts dropped (FGD's simulator keys its expected workload by this
    #: text, not by the set of models); "" where the pod has no list or no GPU
    gpu_spec_text: str = ""


NODE_COLUMNS = ("cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")


def _rows(path: Path, need: tuple[str, ...], what: str) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = [h.strip() for h in (reader.fieldnames or [])]
            reader.fieldnames = header
            missing = [c for c in need if c not in header]
            if missing:
                raise TraceError(f"{path}: not a {what} list: missing column {', '.join(missing)}")
            rows = [(i + 2, row) for i, row in enumerate(reader)]
    except OSError as e:
        raise TraceError(f"{path}: cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise TraceError(f"{path}: not a CSV {what} list ({e})") from None
    if not rows:
        raise TraceError(f"{path}: no {what}s in the file")
    return header, rows


def _int(path: Path, line: int, row: dict[str, str], col: str, lo: int = 0, hi: int | None = None) -> int:
    raw = (row.get(col) or "").strip()
    try:
        v = int(raw)
    except ValueError:
        try:
            f = float(raw)
        except ValueError:
            f = float("nan")
        if f != f or f != int(f):
            raise TraceError(f"{path}: line {line}: {col} {raw!r} is not a whole number") from None
        v = int(f)
    if v < lo:
        raise TraceError(f"{path}: line {line}: {col} {v} is negative" if lo == 0 else
                         f"{path}: line {line}: {col} {v} is below {lo}")  # fmt: skip
    if hi is not None and v > hi:
        raise TraceError(f"{path}: line {line}: {col} {v} is above {hi}")
    return v


def read_nodes(path: str | Path) -> list[TraceNode]:
    p = Path(path)
    header, rows = _rows(p, NODE_COLUMNS, "node")
    name_col = "sn" if "sn" in header else "name" if "name" in header else None
    if name_col is None:
        raise TraceError(f"{p}: not a node list: missing column sn")
    out, seen = [], set()
    for line, row in rows:
        name = (row.get(name_col) or "").strip()
        if not name:
            raise TraceError(f"{p}: line {line}: a node without a name")
        if name in seen:
            raise TraceError(f"{p}: line {line}: node {name} twice")
        seen.add(name)
        out.append(TraceNode(name, _int(p, line, row, "cpu_milli"), _int(p, line, row, "memory_mib"),
                             _int(p, line, row, "gpu", 0, 64), (row.get("model") or "").strip()))  # fmt: skip
    return out


def read_pods(path: str | Path, timed: bool = False) -> list[TracePod]:
    """The pods of a pod list; with ``timed`` each needs its creation and deletion time (a replay)."""
    p = Path(path)
    need = POD_COLUMNS + (("creation_time", "deletion_time") if timed else ())
    header, rows = _rows(p, need, "pod")
    has_spec = "gpu_spec" in header
    has_times = "creation_time" in header and "deletion_time" in header
    out = []
    for line, row in rows:
        name = (row.get("name") or "").strip()
        if not name:
            raise TraceError(f"{p}: line {line}: a pod without a name")
        num = _int(p, line, row, "num_gpu", 0, 64)
        milli = _int(p, line, row, "gpu_milli", 0, MILLI)
        if num > 1 and milli not in (0, MILLI):
            raise TraceError(f"{p}: line {line}: gpu_milli {milli} with num_gpu {num}: a share is of one GPU")
        parts = [s.strip() for s in (row.get("gpu_spec") or "").split("|") if s.strip()] if has_spec else []
        spec = frozenset(parts)
        shape = PodShape(_int(p, line, row, "cpu_milli"), _int(p, line, row, "memory_mib"), num,
                         milli, spec)  # fmt: skip
        created = deleted = None
        if has_times and (timed or (row.get("creation_time") or "").strip()):
            created = _int(p, line, row, "creation_time")
            deleted = _int(p, line, row, "deletion_time") if (row.get("deletion_time") or "").strip() else None
            if deleted is not None and deleted < created:
                raise TraceError(f"{p}: line {line}: deletion_time {deleted} is before creation_time {created}")
        out.append(TracePod(name, shape, created, deleted, gpu_spec_text="|".join(parts) if num else ""))
    return out


def expected_workload(pods: list[TracePod]) -> tuple[TargetShape, ...]:
    """FGD's expected workload of a pod list: :func:`typical_shapes` keyed by each pod's model list as written."""
    return typical_shapes([p.shape for p in pods], spec_texts=[p.gpu_spec_text for p in pods])
