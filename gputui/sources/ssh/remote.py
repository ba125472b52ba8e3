"""What runs on each host, and the reading of what it sends back.

Two sessions per host share one SSH connection (ControlMaster):

- the *values* stream, ``nvidia-smi --query-gpu=FIELDS --format=csv,noheader,nounits -l N``: one CSV row per GPU
  per interval, about 100 bytes a GPU, read with the `--query-gpu` importer;
- the *detail* loop, every ``detail`` seconds: one ``nvidia-smi -q -x`` document (names, MIG layout, processes,
  driver), then a ``ps`` of the GPU processes it lists (their users and command lines), between marker lines.

Full XML every second would cost about 15-40 KB a GPU to send and parse; the CSV costs about 1 %% of that (see
docs/ssh.md for the measurement). Output from the host is data: the XML is read with the importer's refusing
parser (no entities, no DTD, bounded size), ps lines are split on blanks, nothing is evaluated.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from gputui.core.errors import SourceError
from gputui.core.model import GpuSnapshot, NodeSnapshot, ProcessInfo
from gputui.core.plain_text import sanitise
from gputui.sources.nvsmi.mapping import node_from_tree
from gputui.sources.nvsmi.query_csv import CsvPolls
from gputui.sources.nvsmi.xml_stream import parse_xml_document

#: the --query-gpu fields of the values stream, in this order
VALUE_FIELDS = (
    "index",
    "uuid",
    "utilization.gpu",
    "utilization.memory",
    "memory.used",
    "memory.total",
    "temperature.gpu",
    "power.draw",
    "power.limit",
    "fan.speed",
    "clocks.gr",
    "clocks.sm",
    "clocks.mem",
    "pstate",
)
START_MARK = "<!--gputui:start-->"  # what a login shell's own output (a banner from .bashrc) comes before
PS_MARK = "<!--gputui:ps-->"
END_MARK = "<!--gputui:end-->"
MISSING = "gputui: nvidia-smi not found on the remote PATH"
MISSING_STATUS = 127
MAX_PS_LINES = 4096
_NEED = f"command -v nvidia-smi >/dev/null 2>&1 || {{ echo '{MISSING}' >&2; exit {MISSING_STATUS}; }}"


def _sh(script: str) -> str:
    """``script`` for the remote login shell, run by a POSIX sh whatever the user's shell is."""
    return f"exec sh -c {shlex.quote(script)}"


def values_command(interval: float) -> str:
    """The values stream: CSV rows every ``interval`` seconds (``-lms`` below one second)."""
    whole = interval >= 1 and float(interval).is_integer()
    loop = f"-l {int(interval)}" if whole else f"-lms {max(int(interval * 1000), 100)}"
    fields = ",".join(VALUE_FIELDS)
    return _sh(
        f"{_NEED}; echo '{START_MARK}'; exec nvidia-smi --query-gpu={fields} --format=csv,noheader,nounits {loop}"
    )


def detail_command(every: float) -> str:
    """The detail loop: the XML document, the marker, ``ps`` of the pids in it, the end marker; then a pause."""
    pids = "sed -n 's:.*<pid>\\([0-9][0-9]*\\)</pid>.*:\\1:p' | sort -u | tr '\\n' ','"
    script = (
        f"{_NEED}; echo '{START_MARK}'; "
        f"while :; do x=$(nvidia-smi -q -x) || exit $?; printf '%s\\n' \"$x\"; echo '{PS_MARK}'; "
        f"p=$(printf '%s\\n' \"$x\" | {pids}); "
        f'[ -n "$p" ] && ps -o pid=,user=,args= -p "${{p%,}}"; echo \'{END_MARK}\'; sleep {max(int(every), 1)}; done'
    )
    return _sh(script)


def parse_detail(host: str, xml: bytes, ps_lines: list[str]) -> NodeSnapshot:
    """The node of one detail round: the XML document read by the importer, users and commands from ``ps``."""
    root = parse_xml_document(xml, f"{host}: nvidia-smi -q -x")
    _, node = node_from_tree(root, host)
    owners: dict[int, tuple[str, str]] = {}
    for line in ps_lines[:MAX_PS_LINES]:
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0].isdigit():
            owners[int(parts[0])] = (parts[1], parts[2] if len(parts) > 2 else "")
    if not owners:
        return node
    gpus = tuple(replace(g, processes=tuple(_owned(p, owners) for p in g.processes)) for g in node.gpus)
    return replace(node, gpus=gpus)


def _owned(p: ProcessInfo, owners: dict[int, tuple[str, str]]) -> ProcessInfo:
    who = owners.get(p.pid)
    if who is None:
        return p
    return replace(p, user=who[0], command=who[1] or p.command)


class ValueRows:
    """Groups the values stream's rows into polls: a poll is complete when every GPU of the last detail document
    has its row (no waiting for the next poll), or when an index repeats."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.expected = 0
        self._rows: list[str] = []
        self._indices: set[str] = set()
        self._polls = CsvPolls(list(VALUE_FIELDS), f"{host}: nvidia-smi --query-gpu")

    def add(self, line: str) -> list[GpuSnapshot] | None:
        """Take one line; the poll's GPUs once it is complete. SourceError for a line that is no such row."""
        index = line.split(",", 1)[0].strip()
        if not index.isdigit() or line.count(",") != len(VALUE_FIELDS) - 1:
            raise SourceError(f"not an nvidia-smi --query-gpu row: {line[:80]!r}")
        done: list[GpuSnapshot] | None = None
        if index in self._indices:
            done = self._flush()
        self._rows.append(line)
        self._indices.add(index)
        if self.expected and len(self._rows) >= self.expected:
            return self._flush()
        return done

    def _flush(self) -> list[GpuSnapshot]:
        rows, self._rows, self._indices = self._rows, [], set()
        return self._polls.poll(rows)


#: the GpuSnapshot fields the values stream refreshes
LIVE_FIELDS = (
    "utilization_gpu",
    "utilization_memory",
    "memory_used_mib",
    "memory_total_mib",
    "temperature_c",
    "power_draw_w",
    "power_limit_w",
    "fan_percent",
    "clock_graphics_mhz",
    "clock_sm_mhz",
    "clock_memory_mhz",
    "performance_state",
)


def with_values(node: NodeSnapshot, values: list[GpuSnapshot]) -> NodeSnapshot:
    """The detail node with one poll's live values, matched by index and checked by UUID (a GPU whose UUID
    differs, after a reboot renumbered them, keeps the detail's values until the next detail round)."""
    by_index = {v.index: v for v in values}
    gpus = []
    for g in node.gpus:
        v = by_index.get(g.index)
        if v is None or (v.uuid is not None and g.uuid is not None and v.uuid != g.uuid):
            gpus.append(g)
            continue
        changes = {f: getattr(v, f) for f in LIVE_FIELDS}
        if v.performance_state is not None:  # the one string among the values: sanitised here, not per node
            changes["performance_state"] = sanitise(v.performance_state)
        gpus.append(replace(g, **changes))
    return replace(node, gpus=tuple(gpus))


def without_values(node: NodeSnapshot) -> NodeSnapshot:
    """The node's GPUs with their identity only: what is shown while a fault lasts (values N/A, no processes)."""
    blank: dict[str, Any] = dict.fromkeys(LIVE_FIELDS)
    return replace(node, gpus=tuple(replace(g, processes=(), mps=None, **blank) for g in node.gpus))
