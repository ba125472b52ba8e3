"""A Slurm node as gputui needs it (name, host, state, GRES configured and used, CPUs, memory, features), from
JSON or scontrol text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gputui.slurm.errors import SlurmError
from gputui.slurm.formats import json_values as jv
from gputui.slurm.formats.gres import GresItem, parse_gres
from gputui.slurm.formats.keyvalue import Record, parse_records

#: Node states and flags under which Slurm starts no new job on the node.
UNAVAILABLE = frozenset({
    "DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN",
    "POWERING_DOWN", "MAINTENANCE", "MAINT", "FUTURE", "UNKNOWN", "INVALID", "INVALID_REG", "REBOOT_ISSUED",
    "REBOOT_REQUESTED",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class SlurmNode:
    """One node: ``state`` as scontrol prints it (``MIXED``, ``IDLE+DRAIN``); ``gres_used`` None when not shown."""

    name: str
    state: str
    gres: tuple[GresItem, ...] = ()
    gres_used: tuple[GresItem, ...] | None = None
    hostname: str | None = None
    address: str | None = None
    reason: str | None = None
    partitions: tuple[str, ...] = ()
    cpus: int | None = None  # CPUTot / cpus
    cpus_alloc: int | None = None  # CPUAlloc / alloc_cpus
    memory_mib: int | None = None  # RealMemory / real_memory (Slurm's MB are MiB)
    memory_alloc_mib: int | None = None  # AllocMem / alloc_memory
    features: tuple[str, ...] = ()  # ActiveFeatures, in Slurm's order
    weight: int | None = None  # Weight: Slurm fills the lowest-weight nodes first

    @property
    def available(self) -> bool:
        """Whether Slurm may start new jobs here (not down, drained, failing, powered down, ...)."""
        return not (set(self.state.split("+")) & UNAVAILABLE)


def _state(words: Iterable[str]) -> str:
    return "+".join(dict.fromkeys(w for w in words if w)) or "UNKNOWN"


def features(v: Any) -> tuple[str, ...]:
    """A feature list as Slurm gives it: ``"a100,ib"`` (text and 22.05 JSON) or ``["a100", "ib"]`` (later JSON)."""
    joined = jv.text(v)
    return tuple(f.strip() for f in joined.split(",") if f.strip()) if joined else ()


def _json_features(d: Mapping[str, Any]) -> tuple[str, ...]:
    return features(d["active_features"] if "active_features" in d else d.get("features"))


def node_from_json(d: Mapping[str, Any]) -> SlurmNode:
    """An entry of ``sinfo --json`` 22.05 ``nodes`` (also the shape of later ``scontrol show node --json``)."""
    name = jv.text(d.get("name"))
    if name is None:
        raise SlurmError("sinfo --json: a node without a name")
    state = _state((*jv.words(d.get("state")), *jv.words(d.get("state_flags"))))
    used = d.get("gres_used")
    reason = d.get("reason")
    if isinstance(reason, Mapping):  # later releases: {"description": ..., "set_by": ...}
        reason = reason.get("description")
    parts = d.get("partitions")
    return SlurmNode(
        name=name, state=state, gres=parse_gres(jv.text(d.get("gres"))),
        gres_used=None if used is None else parse_gres(jv.text(used)),
        hostname=jv.text(d.get("hostname")), address=jv.text(d.get("address")), reason=jv.text(reason),
        partitions=tuple(str(p) for p in parts) if isinstance(parts, list) else (),
        cpus=jv.number(d.get("cpus")), cpus_alloc=jv.number(d.get("alloc_cpus")),
        memory_mib=jv.number(d.get("real_memory")), memory_alloc_mib=jv.number(d.get("alloc_memory")),
        features=_json_features(d), weight=jv.number(d.get("weight")),
    )  # fmt: skip


def _per_node(v: Any) -> int | None:
    """A group's per-node figure (``{"minimum": n, "maximum": n}``) when every node of it has the same."""
    o = _obj(v)
    low, high = jv.number(o.get("minimum")), jv.number(o.get("maximum"))
    return high if low == high else None


def nodes_from_sinfo_entries(entries: list[Any]) -> list[SlurmNode]:
    """The ``sinfo`` list of later releases: entries grouping nodes of one partition and like state.

    Each entry names its nodes (``nodes.nodes``); its GRES ``total`` holds for each of them, its ``used`` only
    when it names a single node (grouped nodes' usage cannot be told apart); likewise CPUs and memory: the
    per-node size where the group's minimum and maximum agree, the allocation for a group of one. Nodes in
    several partitions repeat.
    """
    out: dict[str, SlurmNode] = {}
    for e in entries:
        if not isinstance(e, Mapping):
            continue
        group, node, gres, part, cpus, mem, feats = (
            _obj(e.get(k)) for k in ("nodes", "node", "gres", "partition", "cpus", "memory", "features")
        )
        names = [str(n) for n in group.get("nodes") or []]
        hosts = list(group.get("hostnames") or [])
        addrs = list(group.get("addresses") or [])
        pname = jv.text(part.get("name"))
        reason = e.get("reason")
        if isinstance(reason, Mapping):
            reason = reason.get("description")
        for i, name in enumerate(names):
            if name in out:
                prev = out[name]
                if pname and pname not in prev.partitions:
                    out[name] = _with_partition(prev, pname)
                continue
            one = len(names) == 1
            used = jv.text(gres.get("used")) if one else None
            out[name] = SlurmNode(
                name=name, state=_state(jv.words(node.get("state"))), gres=parse_gres(jv.text(gres.get("total"))),
                gres_used=parse_gres(used) if used is not None else None,
                hostname=jv.text(hosts[i]) if i < len(hosts) else None,
                address=jv.text(addrs[i]) if i < len(addrs) else None,
                reason=jv.text(reason), partitions=(pname,) if pname else (),
                cpus=_per_node(cpus), cpus_alloc=jv.number(cpus.get("allocated")) if one else None,
                memory_mib=_per_node(mem), memory_alloc_mib=jv.number(mem.get("allocated")) if one else None,
                features=features(feats.get("active") if "active" in feats else feats.get("total")),
                weight=_per_node(e.get("weight")),
            )  # fmt: skip
    return list(out.values())


def _obj(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _with_partition(n: SlurmNode, partition: str) -> SlurmNode:
    return replace(n, partitions=(*n.partitions, partition))


def nodes_from_json(data: Mapping[str, Any]) -> list[SlurmNode]:
    """Nodes of a loaded ``sinfo --json`` (either generation)."""
    if isinstance(data.get("nodes"), list):
        return [node_from_json(d) for d in data["nodes"] if isinstance(d, Mapping)]
    return nodes_from_sinfo_entries(data.get("sinfo") or [])


def node_from_record(r: Record) -> SlurmNode:
    name = r.get("NodeName")
    state = r.get("State")
    if name is None or state is None:
        what = name or "a node"
        raise SlurmError(f"scontrol show node: the record of {what} is incomplete (no State=); output cut short?")
    used = r.fields.get("GresUsed")
    parts = r.get("Partitions")
    return SlurmNode(
        name=name, state=_state(state.upper().split("+")), gres=parse_gres(r.get("Gres")),
        gres_used=None if used is None else parse_gres(used), hostname=r.get("NodeHostName"),
        address=r.get("NodeAddr"), reason=r.get("Reason"),
        partitions=tuple(p for p in (parts or "").split(",") if p),
        cpus=jv.number(r.get("CPUTot")), cpus_alloc=jv.number(r.get("CPUAlloc")),
        memory_mib=jv.number(r.get("RealMemory")), memory_alloc_mib=jv.number(r.get("AllocMem")),
        features=features(r.get("ActiveFeatures") if "ActiveFeatures" in r.fields else r.get("AvailableFeatures")),
        weight=jv.number(r.get("Weight")),
    )  # fmt: skip


def nodes_from_text(text: str, command: str = "scontrol show node") -> list[SlurmNode]:
    return [node_from_record(r) for r in parse_records(text, "NodeName", command)]


__all__ = ["UNAVAILABLE", "SlurmNode", "nodes_from_json", "nodes_from_text"]
