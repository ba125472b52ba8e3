"""Job records and events to database rows and back (JSON for the structured columns)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import fields
from functools import lru_cache
from typing import Any

from gputui.core.errors import SnapshotFormatError
from gputui.core.model import Event
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.request import JobRequest
from gputui.core.serialize import from_data, to_data
from gputui.jobs.errors import StoreError
from gputui.jobs.records import JobRecord

#: JobRecord fields kept as JSON text in their column.
_JSON = {"request", "allocation", "environment", "command"}

COLUMNS = tuple(f.name for f in fields(JobRecord))


def encode(name: str, value: Any) -> Any:
    """One field's value as stored."""
    if name == "request":
        return json.dumps(to_data(value), separators=(",", ":"))
    if name == "allocation":
        return None if value is None else json.dumps(to_data(value), separators=(",", ":"))
    if name in ("environment", "command"):
        return json.dumps(list(value) if name == "command" else value, separators=(",", ":"))
    return value


def record_values(rec: JobRecord) -> dict[str, Any]:
    """Every column of ``rec`` except the id, encoded."""
    return {n: encode(n, getattr(rec, n)) for n in COLUMNS if n != "id"}


# Requests and allocations are frozen, and a tick reads the same running jobs again and again: decode each
# distinct text once.
@lru_cache(maxsize=8192)
def _request(text: str) -> JobRequest:
    data = json.loads(text)
    if isinstance(data, dict) and "gpu_mem_mib" not in data and data.get("mem_per_gpu_mib") is not None:
        # stored before --mem-per-gpu took Slurm's meaning (host memory): it was the GPU memory, now --gpu-mem
        data["gpu_mem_mib"] = data.pop("mem_per_gpu_mib")
    return from_data(JobRequest, data)


@lru_cache(maxsize=8192)
def _allocation(text: str) -> Allocation:
    return from_data(Allocation, json.loads(text))


def record_from_row(row: sqlite3.Row) -> JobRecord:
    kw: dict[str, Any] = {n: row[n] for n in COLUMNS if n not in _JSON}
    try:
        kw["request"] = _request(row["request"])
        alloc = row["allocation"]
        kw["allocation"] = None if alloc is None else _allocation(alloc)
        kw["environment"] = json.loads(row["environment"]) if row["environment"] else {}
        kw["command"] = tuple(json.loads(row["command"]))
    except (ValueError, SnapshotFormatError) as e:
        raise StoreError(f"job {row['id']} in the state database is damaged: {e}") from None
    return JobRecord(**kw)


def event_values(cluster: str, event: Event) -> dict[str, Any]:
    return {
        "cluster": cluster,
        "timestamp": event.timestamp,
        "kind": event.kind,
        "job_id": int(event.job_id) if event.job_id is not None and event.job_id.isdigit() else None,
        "message": event.message,
        "node": event.node,
        "gpus": json.dumps(list(event.gpus)),
        "data": json.dumps([list(kv) for kv in event.data]),
    }


def event_from_row(row: sqlite3.Row) -> Event:
    return Event(
        timestamp=row["timestamp"],
        kind=row["kind"],
        message=row["message"],
        node=row["node"],
        gpus=tuple(json.loads(row["gpus"])),
        job_id=None if row["job_id"] is None else str(row["job_id"]),
        data=tuple((str(k), str(v)) for k, v in json.loads(row["data"])),
    )
