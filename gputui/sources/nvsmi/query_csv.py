"""`nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]` logs read into frames.

GPUs are told apart by their UUID, else their bus id, else their serial, else their index; without an
`index` column a GPU keeps the place it first appeared at, so its history stays its own. Rows become
frames by poll: a frame ends when a GPU repeats, or when a row comes more than 5 s (or half the poll
interval, if more) after the frame's first row; its time is its first row's `timestamp`. Without any
GPU column, rows sharing a `timestamp` form a frame. Without a `timestamp` column the last frame gets
the file's modification time and each earlier frame one second less, as `-l 1` would have written them
(with a warning saying so).
"""

from __future__ import annotations

import csv
import dataclasses
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from gputui.core.errors import SourceError
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.sources.nvsmi.lines import TailWatch
from gputui.sources.nvsmi.spellings import CSV_COLUMNS, CSV_KEY_COLUMNS, CSV_KNOWN_FIELDS
from gputui.sources.nvsmi.values import NA_VALUES, csv_time, text, version

COLUMNS = {name: (field, convert) for name, (field, convert, _seen) in CSV_COLUMNS.items()}
KNOWN_FIELDS = CSV_KNOWN_FIELDS
_FIELD_NAME = re.compile(r"^[a-z][a-zA-Z0-9_.]*$")
_UNIT = re.compile(r"\s*\[[^\]]*\]$")
_CACHE_LIMIT = 50_000  # distinct raw values remembered per column
_BATCH_ROWS = 8192
_SAME_POLL_S = 5.0  # rows of one poll can be seconds apart on a busy host; polls are seldom this close

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
    whole: bool = False,
) -> list[ClusterSnapshot]:
    """Read query-gpu CSV lines into one frame per poll; see the module docstring for grouping.

    Unless ``whole`` says the lines are known to be complete, a last row without its newline (the file
    was cut inside it) and a last poll with fewer GPUs than the one before are dropped, with one warning.
    """
    tail = TailWatch(lines)
    rows = csv.reader(tail, skipinitialspace=True)
    try:
        first = next((r for r in rows if r), None)
        if first is None:
            raise SourceError(f"{label}: empty CSV (expected `nvidia-smi --query-gpu` output)")
        if tail.cut and not whole:
            raise SourceError(f"{label}: CSV cut short inside its first line (log cut short?)")
        units: list[str | None] = []  # each column's unit, when the header gives it
        if looks_like_header(first):
            names = [field_name(c) for c in first]
            units = [_unit_of(c) for c in first]
            pending: list[list[str]] = []
        elif fields:
            names = [field_name(f) for f in fields]
            pending = [first]
            if len(names) != len(first):
                raise SourceError(f"{label}: {len(names)} fields given but the CSV rows have {len(first)} columns")
        else:
            raise SourceError(
                f"{label}: CSV has no header row (--format=csv,noheader); give its --query-gpu field list "
                "with --fields index,name,... (the same names, in the same order)"
            )
        reader = _RowReader(names, label)
        bad = first_bad = 0
        last_bad = False
        held: list[str] | None = None  # each row waits for the next, so that a cut last row can be dropped
        count = 0
        for row in itertools.chain(pending, rows):
            if not row:
                continue
            count += 1
            if held is not None:
                reader.add(held)
                held = None
            last_bad = len(row) != len(names)
            if last_bad:
                bad += 1
                if bad == 1:
                    first_bad = rows.line_num
                continue
            held = row
    except csv.Error as e:
        raise SourceError(f"{label}: not a readable CSV ({e})") from None
    # nvidia-smi ends every row with a newline, but a lone row saved by hand may have lost it: a lone row is
    # cut only when its values carry units and its last one lacks the unit the header gives
    cut = not whole and tail.cut and (count > 1 or last_bad or (held is not None and _unit_cut(held, names, units)))
    if cut and last_bad:
        bad -= 1  # the row cut short is the one with too few columns: reported as the cut, not as bad
    if held is not None and not cut:
        reader.add(held)
    reader.flush()
    if bad:
        warnings.append(f"{label}: {bad} row(s) with a wrong number of columns skipped (first at line {first_bad})")
    problem = "its last row is cut inside a value" if cut else None
    if not whole and (short := reader.short_last_poll()):
        reader.frames.pop()
        problem = f"{problem} and it has {short}" if problem else f"it has {short}"
    if problem:
        warnings.append(f"{label}: last poll dropped: {problem} (log cut short?)")
    if not reader.frames:
        if problem:
            raise SourceError(f"{label}: CSV has no complete poll ({problem}; log cut short?)")
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
        # every key column present, best first: a row is keyed by the first that is not N/A in it (GeForce
        # boards print `serial` as [N/A])
        self.key_cols = [names.index(k) for k in CSV_KEY_COLUMNS if k in names]
        self.key_col = self.key_cols[0] if self.key_cols else None
        self.has_index = "index" in names
        self.time_col = names.index("timestamp") if "timestamp" in names else None
        self.host_col = names.index("hostname") if "hostname" in names else None
        self.driver_cols = [names.index(c) for c in ("kmd_version", "driver_version") if c in names]
        if self.key_col is None and self.time_col is None:
            raise SourceError(
                f"{label}: cannot tell polls apart: the CSV needs a timestamp column or a GPU column "
                "(uuid, pci.bus_id, serial or index)"
            )
        self.frames: list[tuple[str | None, list[GpuSnapshot]]] = []
        self.frame_keys: list[str] = []  # the GPU keys of the frame being filled, in row order
        self.hostname: str | None = None
        self.driver: str | None = None
        self._order: dict[str, int] = {}  # GPU key -> its index when the log has no index column
        self._keys: set[str] = set()
        self._prev_keys: set[str] = set()
        self._starts: list[float] = []  # the first row's time of the last two frames, for the poll interval
        self._last: dict[str, tuple[tuple[Any, ...], GpuSnapshot]] = {}
        self._batch: list[list[str]] = []

    def add(self, row: list[str]) -> None:
        self._batch.append(row)
        if len(self._batch) >= _BATCH_ROWS:
            self.flush()

    def _new_poll(self, key: str | None, stamp: str | None) -> bool:
        """Whether a row starts a new frame: its GPU repeats, or it comes well after the frame's first row."""
        if not self.frames:
            return True
        first = self.frames[-1][0]
        if key is None and not self.key_cols:
            return stamp != first
        if key is not None and key in self._keys:
            return True
        if stamp is None or not self._starts or (first is not None and stamp[:19] == first[:19]):
            return False  # no time, or within the frame's first second
        t = csv_time(stamp)
        if t is None:
            return False
        interval = self._starts[-1] - self._starts[-2] if len(self._starts) > 1 else 0.0
        return t - self._starts[-1] > max(_SAME_POLL_S, interval / 2)

    def flush(self) -> None:
        rows, self._batch = self._batch, []
        if not rows:
            return
        cols = list(zip(*rows, strict=True))
        args = self._converted(cols, len(rows))
        keys = [cols[c] for c in self.key_cols]
        stamps = cols[self.time_col] if self.time_col is not None else None
        for i, values in enumerate(args):  # values: GpuSnapshot's plain fields for one row
            stamp = stamps[i] if stamps is not None else None
            key = None
            for column in keys:
                v = column[i]
                if v and v[0] != "[" and v.lower() not in NA_VALUES:  # CSV brackets its N/A: "[N/A]"
                    key = v.strip()
                    break
            if self._new_poll(key, stamp):
                self.frames.append((stamp, []))
                self._prev_keys, self._keys = self._keys, set()
                t = csv_time(stamp)
                if t is not None:
                    self._starts = [*self._starts[-1:], t]
            gpus = self.frames[-1][1]
            if key is not None:
                self._keys.add(key)
            if values[_INDEX_POS] is None:
                # no index column: the GPU's place in the order GPUs first appear in (else in the poll)
                position = self._order.setdefault(key, len(self._order)) if key is not None else len(gpus)
                values = values[:_INDEX_POS] + (position,) + values[_INDEX_POS + 1 :]
            cache_key = key if key is not None else str(len(gpus))
            last = self._last.get(cache_key)
            if last is not None and last[0] == values:
                gpus.append(last[1])
                continue
            snap = GpuSnapshot(*values)
            self._last[cache_key] = (values, snap)
            gpus.append(snap)
        if self.hostname is None and self.host_col is not None:
            self.hostname = next((h for h in map(text, cols[self.host_col]) if h), None)
        for col in self.driver_cols:
            if self.driver is None:
                self.driver = next((d for d in map(version, cols[col]) if d), None)

    def short_last_poll(self) -> str | None:
        """'1 of 2 GPUs' when the last frame lacks GPUs that the frame before it had, else None."""
        if self.key_col is None or len(self.frames) < 2 or not self._prev_keys:
            return None
        if self._keys < self._prev_keys:
            return f"{len(self._keys)} of the {len(self._prev_keys)} GPUs of the poll before"
        return None

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
            what = "no readable timestamps" if self.time_col is not None else "no timestamp column"
            warnings.append(f"{self.label}: {what}; frames timed back from the file's modification time")
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


def _unit_of(header_cell: str) -> str | None:
    m = _UNIT.search(header_cell.strip())
    return m.group(0).strip()[1:-1].strip() or None if m else None


def _unit_cut(row: list[str], names: list[str], units: list[str | None]) -> bool:
    """Whether a row written with units (`--format=csv`) has a last value without its unit."""

    def has_unit(value: str, unit: str) -> bool:
        v = value.strip()
        return v.endswith(unit) or (v.startswith("[") and v.endswith("]"))

    if not units or units[-1] is None:
        return False
    with_units = [has_unit(v, u) for v, u in zip(row[:-1], units[:-1], strict=True) if u is not None and u != "%"]
    return any(with_units) and not has_unit(row[-1], units[-1])


def _convert(cache: dict[str, Any], convert: Callable[[str], Any], raw: str) -> Any:
    value = convert(raw)
    if len(cache) < _CACHE_LIMIT:
        cache[raw] = value
    return value


def _priority(name: str) -> int:
    order = list(COLUMNS)
    return order.index(name) if name in COLUMNS else len(order)


class CsvPolls:
    """A live `--query-gpu ... --format=csv,noheader` stream read one poll at a time (the SSH source's values):
    the column caches and the snapshots of unchanged GPUs carry over from poll to poll."""

    def __init__(self, fields: list[str], label: str) -> None:
        self.names = [field_name(f) for f in fields]
        self._reader = _RowReader(self.names, label)
        self.label = label

    def poll(self, lines: list[str]) -> list[GpuSnapshot]:
        """The GPUs of one poll's rows; SourceError when a row is no such row."""
        try:
            rows = [r for r in csv.reader(lines, skipinitialspace=True) if r]
        except csv.Error as e:
            raise SourceError(f"{self.label}: not a readable CSV ({e})") from None
        reader = self._reader
        for row in rows:
            if len(row) != len(self.names):
                raise SourceError(f"{self.label}: a row with {len(row)} columns, expected {len(self.names)}")
            reader.add(row)
        reader.flush()
        gpus = [g for _, frame in reader.frames for g in frame]
        reader.frames.clear()
        return gpus
