"""`nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` logs read into frames.

Rows become frames this way: with a GPU key column (uuid, pci.bus_id or index) a frame ends when a GPU
repeats, and its time is its first row's `timestamp`; without one, rows sharing a `timestamp` form a
frame. Without a `timestamp` column the last frame gets the file's modification time and each earlier
frame one second less, as `-l 1` would have written them.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gputui.core.errors import SourceError
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.sources.nvsmi.values import csv_time, enabled, integer, number, text

# query field (and nvidia-smi's aliases) -> (model field, converter); where several columns feed one
# field, the earlier one in this table wins when both have a value
COLUMNS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "index": ("index", integer),
    "uuid": ("uuid", text),
    "gpu_uuid": ("uuid", text),
    "name": ("name", text),
    "gpu_name": ("name", text),
    "pci.bus_id": ("pci_bus_id", text),
    "gpu_bus_id": ("pci_bus_id", text),
    "memory.total": ("memory_total_mib", integer),
    "memory.used": ("memory_used_mib", integer),
    "utilization.gpu": ("utilization_gpu", integer),
    "utilization.memory": ("utilization_memory", integer),
    "temperature.gpu": ("temperature_c", integer),
    "power.draw": ("power_draw_w", number),
    "power.draw.average": ("power_draw_w", number),
    "power.draw.instant": ("power_draw_w", number),
    "enforced.power.limit": ("power_limit_w", number),
    "power.limit": ("power_limit_w", number),
    "fan.speed": ("fan_percent", integer),
    "clocks.current.graphics": ("clock_graphics_mhz", integer),
    "clocks.gr": ("clock_graphics_mhz", integer),
    "clocks.current.sm": ("clock_sm_mhz", integer),
    "clocks.sm": ("clock_sm_mhz", integer),
    "clocks.current.memory": ("clock_memory_mhz", integer),
    "clocks.mem": ("clock_memory_mhz", integer),
    "pstate": ("performance_state", text),
    "compute_mode": ("compute_mode", text),
    "persistence_mode": ("persistence_mode", enabled),
    "mig.mode.current": ("mig_mode_current", enabled),
    "mig.mode.pending": ("mig_mode_pending", enabled),
}
KEY_COLUMNS = ("uuid", "gpu_uuid", "pci.bus_id", "gpu_bus_id", "index")  # what tells GPUs apart, best first
NODE_COLUMNS = ("timestamp", "hostname", "driver_version")
KNOWN_FIELDS = frozenset(COLUMNS) | frozenset(NODE_COLUMNS) | {"count", "serial", "gpu_serial", "memory.free"}

_FIELD_NAME = re.compile(r"^[a-z][a-zA-Z0-9_.]*$")
_UNIT = re.compile(r"\s*\[[^\]]*\]$")
_CACHE_LIMIT = 50_000  # distinct raw values remembered per column
_BATCH_ROWS = 8192

# GpuSnapshot's plain fields in declaration order, so that a row converts to positional arguments
_SCALAR_FIELDS = tuple(f.name for f in dataclasses.fields(GpuSnapshot))[
    : [f.name for f in dataclasses.fields(GpuSnapshot)].index("gpu_instances")
]
_INDEX_POS = _SCALAR_FIELDS.index("index")


def field_name(header_cell: str) -> str:
    """'utilization.gpu [%]' -> 'utilization.gpu'."""
    return _UNIT.sub("", header_cell.strip()).strip().lower()


def looks_like_header(cells: list[str]) -> bool:
    """Whether a first row is a query-gpu header (with or without units) rather than data."""
    names = [_UNIT.sub("", c.strip()).strip() for c in cells]
    return all(_FIELD_NAME.match(n) for n in names) and any(n.lower() in KNOWN_FIELDS for n in names)


def frames_from_csv(
    lines: Iterable[str],
    *,
    label: str,
    node_name: str,
    source: str,
    mtime: float,
    warnings: list[str],
    fields: list[str] | None = None,
) -> list[ClusterSnapshot]:
    """Read query-gpu CSV lines into one frame per poll; see the module docstring for grouping."""
    rows = csv.reader(lines, skipinitialspace=True)
    try:
        first = next((r for r in rows if r), None)
        if first is None:
            raise SourceError(f"{label}: empty CSV (expected `nvidia-smi --query-gpu` output)")
        if looks_like_header(first):
            names = [field_name(c) for c in first]
            pending: list[list[str]] = []
        elif fields:
            names = [field_name(f) for f in fields]
            pending = [first]
            if len(names) != len(first):
                raise SourceError(f"{label}: {len(names)} fields given but the CSV rows have {len(first)} columns")
        else:
            raise SourceError(
                f"{label}: CSV has no header row (--format=csv,noheader); the header, or the --query-gpu "
                "field list (fields=...), is needed to know the columns"
            )
        reader = _RowReader(names, label)
        bad = first_bad = 0
        for row in pending:
            reader.add(row)
        for row in rows:
            if len(row) != len(names):
                if not row:
                    continue
                bad += 1
                if bad == 1:
                    first_bad = rows.line_num
                continue
            reader.add(row)
    except csv.Error as e:
        raise SourceError(f"{label}: not a readable CSV ({e})") from None
    reader.flush()
    if bad:
        warnings.append(f"{label}: {bad} row(s) with a wrong number of columns skipped (first at line {first_bad})")
    if not reader.frames:
        raise SourceError(f"{label}: CSV has no data rows")
    return reader.snapshots(node_name=node_name, source=source, mtime=mtime, warnings=warnings)


class _RowReader:
    """Turns rows into per-poll GPU lists, converting a batch of rows column by column.

    Most raw values repeat (names, clocks, states), so each column remembers what it converted; a
    GPU whose values did not change since its last row shares that row's (immutable) snapshot.
    """

    def __init__(self, names: list[str], label: str) -> None:
        self.label = label
        targets: dict[str, list[tuple[int, Callable[[str], Any], dict[str, Any]]]] = {}
        for col, name in sorted(enumerate(names), key=lambda cn: _priority(cn[1])):
            if name in COLUMNS:
                field, convert = COLUMNS[name]
                targets.setdefault(field, []).append((col, convert, {}))
        self.targets = list(targets.items())
        self.key_col = next((names.index(k) for k in KEY_COLUMNS if k in names), None)
        self.time_col = names.index("timestamp") if "timestamp" in names else None
        self.host_col = names.index("hostname") if "hostname" in names else None
        self.driver_col = names.index("driver_version") if "driver_version" in names else None
        if self.key_col is None and self.time_col is None:
            raise SourceError(
                f"{label}: cannot tell polls apart: the CSV needs a timestamp column or a GPU column "
                "(uuid, pci.bus_id or index)"
            )
        self.frames: list[tuple[str | None, list[GpuSnapshot]]] = []
        self.hostname: str | None = None
        self.driver: str | None = None
        self._keys: set[str] = set()
        self._last: dict[str, tuple[tuple[Any, ...], GpuSnapshot]] = {}
        self._batch: list[list[str]] = []

    def add(self, row: list[str]) -> None:
        self._batch.append(row)
        if len(self._batch) >= _BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        rows, self._batch = self._batch, []
        if not rows:
            return
        cols = list(zip(*rows, strict=True))
        args = self._converted(cols, len(rows))
        keys = cols[self.key_col] if self.key_col is not None else None
        stamps = cols[self.time_col] if self.time_col is not None else None
        for i, values in enumerate(args):  # values: GpuSnapshot's plain fields for one row
            stamp = stamps[i] if stamps is not None else None
            if keys is not None:
                key = keys[i]
                new = not self.frames or key in self._keys
            else:
                key = ""
                new = not self.frames or stamp != self.frames[-1][0]
            if new:
                self.frames.append((stamp, []))
                self._keys = set()
            self._keys.add(key)
            gpus = self.frames[-1][1]
            if values[_INDEX_POS] is None:  # no index column: position in the poll
                values = values[:_INDEX_POS] + (len(gpus),) + values[_INDEX_POS + 1 :]
            last = self._last.get(key)
            if last is not None and last[0] == values:
                gpus.append(last[1])
                continue
            snap = GpuSnapshot(*values)
            self._last[key] = (values, snap)
            gpus.append(snap)
        if self.hostname is None and self.host_col is not None:
            self.hostname = next((h for h in map(text, cols[self.host_col]) if h), None)
        if self.driver is None and self.driver_col is not None:
            self.driver = next((d for d in map(text, cols[self.driver_col]) if d), None)

    def _converted(self, cols: list[tuple[str, ...]], n: int) -> Iterator[tuple[Any, ...]]:
        """Each row's GpuSnapshot arguments, converting column by column through the caches."""
        by_field: dict[str, list[Any]] = {}
        for field, sources in self.targets:
            merged: list[Any] | None = None
            for col, convert, cache in sources:
                values = [cache[r] if r in cache else _convert(cache, convert, r) for r in cols[col]]
                if merged is not None:  # an earlier column of the same field wins where it has a value
                    values = [a if a is not None else b for a, b in zip(merged, values, strict=True)]
                merged = values
            assert merged is not None
            by_field[field] = merged
        absent = [None] * n
        return zip(*(by_field.get(f, absent) for f in _SCALAR_FIELDS), strict=True)

    def snapshots(self, *, node_name: str, source: str, mtime: float, warnings: list[str]) -> list[ClusterSnapshot]:
        name = self.hostname or node_name
        n = len(self.frames)
        times: list[float | None] = [csv_time(stamp) for stamp, _ in self.frames]
        if all(t is None for t in times):
            if self.time_col is not None:
                warnings.append(f"{self.label}: no readable timestamps; frames timed back from the file's mtime")
            times = [mtime - (n - 1 - i) for i in range(n)]
        elif any(t is None for t in times):
            warnings.append(f"{self.label}: {sum(t is None for t in times)} frame(s) without a readable timestamp")
            known = next(t for t in times if t is not None)
            for i, t in enumerate(times):
                times[i] = known = t if t is not None else known
        return [
            ClusterSnapshot(
                timestamp=float(t),  # type: ignore[arg-type]
                nodes=(NodeSnapshot(name=name, gpus=tuple(gpus), driver_version=self.driver),),
                source=source,
            )
            for t, (_, gpus) in zip(times, self.frames, strict=True)
        ]


def _convert(cache: dict[str, Any], convert: Callable[[str], Any], raw: str) -> Any:
    value = convert(raw)
    if len(cache) < _CACHE_LIMIT:
        cache[raw] = value
    return value


def _priority(name: str) -> int:
    order = list(COLUMNS)
    return order.index(name) if name in COLUMNS else len(order)
