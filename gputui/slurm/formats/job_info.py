"""A Slurm job as gputui needs it, from ``squeue --json`` (either generation) or ``scontrol show job -d`` text."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gputui.slurm.errors import SlurmError
from gputui.slurm.formats import json_values as jv
from gputui.slurm.formats.gres import GresItem, parse_gres
from gputui.slurm.formats.hosts import expand
from gputui.slurm.formats.keyvalue import Record, parse_records


@dataclass(frozen=True, slots=True)
class SlurmJob:
    """One job. ``gres_alloc`` pairs each allocated node with its GRES (with IDX) while the job runs."""

    id: int
    state: str  # Slurm's: PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED, FAILED, TIMEOUT, ...
    reason: str = "None"  # Slurm's state reason: Resources, Priority, Dependency, BadConstraints, ...
    name: str | None = None
    user: str | None = None
    uid: int | None = None
    nodes: tuple[str, ...] = ()
    gres_alloc: tuple[tuple[str, tuple[GresItem, ...]], ...] = ()
    tres_per_node: str | None = None
    tres_per_job: str | None = None
    tres_per_task: str | None = None
    tres_per_socket: str | None = None
    node_count: int | None = None
    submit_time: float | None = None
    start_time: float | None = None
    end_time: float | None = None
    time_limit_s: int | None = None  # None: unlimited
    priority: int | None = None
    nice: int = 0
    exit_code: int | None = None
    signal: int | None = None
    command: str | None = None
    workdir: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    batch_host: str | None = None
    required_nodes: tuple[str, ...] = ()
    excluded_nodes: tuple[str, ...] = ()
    dependency: str | None = None
    exclusive: bool = False
    cluster: str | None = None
    partition: str | None = None
    batch: bool = True
    cpus: int | None = None  # NumCPUs / cpus: asked for (pending) or held (running), over all its nodes


# -- JSON -----------------------------------------------------------------------------------------------------------
def _exit(v: Any) -> tuple[int | None, int | None]:
    """(exit code, signal): 22.05 prints the raw wait status (768 is exit 3); later releases an object."""
    if isinstance(v, Mapping):
        sig = v.get("signal")
        sig_id = jv.number(sig.get("id")) if isinstance(sig, Mapping) else jv.number(sig)
        return jv.number(v.get("return_code")), sig_id or None
    raw = jv.number(v)
    if raw is None:
        return None, None
    if raw & 0x7F:
        return None, raw & 0x7F
    return (raw >> 8) & 0xFF, None


def _time(v: Any) -> float | None:
    n = jv.number(v)
    return float(n) if n else None  # Slurm prints 0 for "not yet"


def _exclusive(d: Mapping[str, Any]) -> bool:
    shared = jv.words(d.get("shared"))
    excl = jv.words(d.get("exclusive"))
    return "NONE" in shared or bool(set(excl) & {"TRUE", "USER", "MCS", "TOPO"})


GresByNode = tuple[tuple[str, tuple[GresItem, ...]], ...]


def _gres_detail(d: Mapping[str, Any], nodes: tuple[str, ...], job_id: int) -> GresByNode:
    detail = d.get("gres_detail") or []
    if not isinstance(detail, list) or not detail:
        return ()
    if len(detail) != len(nodes):
        raise SlurmError(f"squeue --json: job {job_id} has {len(detail)} gres_detail entries for {len(nodes)} nodes")
    return tuple((n, parse_gres(str(g))) for n, g in zip(nodes, detail, strict=True))


def job_from_json(d: Mapping[str, Any]) -> SlurmJob:
    """An entry of ``squeue --json`` ``jobs``."""
    job_id = jv.number(d.get("job_id"))
    states = jv.words(d.get("job_state"))
    if job_id is None or not states:
        raise SlurmError("squeue --json: a job without job_id or job_state; output cut short?")
    nodes = expand(jv.text(d.get("nodes")))
    limit = d.get("time_limit")
    limit_min = jv.number(limit)
    code, sig = _exit(d.get("exit_code"))
    return SlurmJob(
        id=job_id, state=states[0], reason=jv.text(d.get("state_reason")) or "None", name=jv.text(d.get("name")),
        user=jv.text(d.get("user_name")), uid=jv.number(d.get("user_id")), nodes=nodes,
        gres_alloc=_gres_detail(d, nodes, job_id),
        tres_per_node=jv.text(d.get("tres_per_node")), tres_per_job=jv.text(d.get("tres_per_job")),
        tres_per_task=jv.text(d.get("tres_per_task")), tres_per_socket=jv.text(d.get("tres_per_socket")),
        node_count=jv.number(d.get("node_count")), submit_time=_time(d.get("submit_time")),
        start_time=_time(d.get("start_time")), end_time=_time(d.get("end_time")),
        time_limit_s=None if limit_min is None else limit_min * 60,
        priority=jv.number(d.get("priority")), nice=jv.number(d.get("nice")) or 0, exit_code=code, signal=sig,
        command=jv.text(d.get("command")), workdir=jv.text(d.get("current_working_directory")),
        stdout=jv.text(d.get("standard_output")), stderr=jv.text(d.get("standard_error")),
        batch_host=jv.text(d.get("batch_host")), required_nodes=expand(jv.text(d.get("required_nodes"))),
        excluded_nodes=expand(jv.text(d.get("excluded_nodes"))), dependency=jv.text(d.get("dependency")),
        exclusive=_exclusive(d), cluster=jv.text(d.get("cluster")), partition=jv.text(d.get("partition")),
        batch=d.get("batch_flag") is not False, cpus=jv.number(d.get("cpus")),
    )  # fmt: skip


def jobs_from_json(data: Mapping[str, Any]) -> list[SlurmJob]:
    return [job_from_json(d) for d in data.get("jobs") or [] if isinstance(d, Mapping)]


# -- scontrol text --------------------------------------------------------------------------------------------------
def _text_time(v: str | None) -> float | None:
    """``2026-11-29T20:41:10`` in the client's local time; Unknown / None / N/A give None."""
    if v is None or v in ("Unknown", "None"):
        return None
    try:
        return time.mktime(time.strptime(v, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def text_duration(v: str | None) -> int | None:
    """``UNLIMITED`` -> None; ``[D-]HH:MM:SS`` / ``MM:SS`` -> seconds."""
    if v is None or v.upper() in ("UNLIMITED", "INFINITE", "PARTITION_LIMIT"):
        return None
    m = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)", v.strip())
    if not m:
        return None
    d, h, mi, s = (int(x) if x else 0 for x in m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + s


def _id_pair(v: str | None) -> tuple[str | None, int | None]:
    """``root(0)`` -> ("root", 0)."""
    if v is None:
        return None, None
    m = re.fullmatch(r"(.*?)\((\d+)\)", v)
    return (m.group(1) or None, int(m.group(2))) if m else (v, None)


def _int(v: str | None) -> int | None:
    return int(v) if v is not None and re.fullmatch(r"-?\d+", v) else None


def job_from_record(r: Record) -> SlurmJob:
    job_id = _int(r.get("JobId"))
    state = r.get("JobState")
    if job_id is None or state is None:
        what = f"job {r.get('JobId')}" if r.get("JobId") else "a job"
        raise SlurmError(f"scontrol show job: the record of {what} is incomplete (no JobState=); output cut short?")
    user, uid = _id_pair(r.get("UserId"))
    code = sig = None
    if (ec := r.get("ExitCode")) and re.fullmatch(r"\d+:\d+", ec):
        c, s = (int(x) for x in ec.split(":"))
        code, sig = (None, s) if s else (c, None)
    alloc: list[tuple[str, tuple[GresItem, ...]]] = []
    for det in r.details:
        gres = parse_gres(det.get("GRES"))
        for node in expand(det.get("Nodes")):
            alloc.append((node, gres))
    running_like = state.upper() in ("RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "CONFIGURING", "SIGNALING")
    command = r.get("Command")
    return SlurmJob(
        id=job_id, state=state.upper(), reason=r.get("Reason") or "None", name=r.get("JobName"), user=user, uid=uid,
        nodes=expand(r.get("NodeList")), gres_alloc=tuple(alloc) if running_like else (),
        tres_per_node=r.get("TresPerNode"), tres_per_job=r.get("TresPerJob"), tres_per_task=r.get("TresPerTask"),
        tres_per_socket=r.get("TresPerSocket"), node_count=_int((r.get("NumNodes") or "").split("-")[0]),
        submit_time=_text_time(r.get("SubmitTime")), start_time=_text_time(r.get("StartTime")),
        end_time=_text_time(r.get("EndTime")),
        time_limit_s=text_duration(r.get("TimeLimit")), priority=_int(r.get("Priority")), nice=_int(r.get("Nice")) or 0,
        exit_code=code, signal=sig, command=command, workdir=r.get("WorkDir"), stdout=r.get("StdOut"),
        stderr=r.get("StdErr"), batch_host=r.get("BatchHost"), required_nodes=expand(r.get("ReqNodeList")),
        excluded_nodes=expand(r.get("ExcNodeList")), dependency=r.get("Dependency"),
        exclusive=(r.get("OverSubscribe") or "").upper() == "NO", partition=r.get("Partition"),
        batch=r.get("BatchFlag") != "0", cpus=_int(r.get("NumCPUs")),
    )  # fmt: skip


def jobs_from_text(text: str, command: str = "scontrol show job -d") -> list[SlurmJob]:
    return [job_from_record(r) for r in parse_records(text, "JobId", command)]
