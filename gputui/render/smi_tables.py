"""A snapshot shown the way `nvidia-smi` does: node resources, GPUs, MIG devices, MPS, processes, as lines and box
tables (drawn without rich, as rich drew them). Every string from the snapshot passes
:func:`~gputui.core.plain_text.sanitise` and is shown as plain text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TextIO

from gputui.core.model import ClusterSnapshot, GpuInstance, GpuSnapshot, NodeResources, NodeSnapshot
from gputui.core.node_faults import fault_line
from gputui.core.plain_text import sanitise
from gputui.render.fit_table import FitTable, smi_table
from gputui.render.styled import Styled, ansi, wrap
from gputui.render.terminal import Terminal

Part = Styled | FitTable

NA = Styled("N/A", style="dim")


def na(value: object, fmt: str = "{}") -> Styled:
    """The value formatted (a string sanitised) as plain text; a dim N/A when the source did not have it."""
    if value is None:
        return NA
    return Styled(fmt.format(sanitise(value) if isinstance(value, str) else value))


def on_off(value: bool | None) -> Styled | str:
    return NA if value is None else ("On" if value else "Off")


def utc(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _mem(used: int | None, total: int | None) -> Styled | str:
    if used is None and total is None:
        return NA
    return f"{_mib(used)} / {_mib(total)}"


def _mib(value: int | None) -> str:
    return "N/A" if value is None else f"{value}MiB"  # N/A never carries a unit


def _power(gpu: GpuSnapshot) -> Styled | str:
    if gpu.power_draw_w is None and gpu.power_limit_w is None:
        return NA
    # whole watts truncated, as nvidia-smi's table prints them (37.62 W shows as 37W)
    draw = "N/A" if gpu.power_draw_w is None else f"{int(gpu.power_draw_w)}W"
    cap = "N/A" if gpu.power_limit_w is None else f"{int(gpu.power_limit_w)}W"
    return f"{draw} / {cap}"


def gpu_table(node: NodeSnapshot) -> FitTable:
    t = smi_table(
        "GPUs",
        "GPU",
        "Name",
        "Persist-M",
        "Bus-Id",
        "Fan",
        "Temp",
        "Perf",
        "Pwr:Usage/Cap",
        "Memory-Usage",
        "GPU-Util",
        "Compute M.",
        "MIG M.",
        right=("GPU", "Fan", "Temp", "GPU-Util"),
    )
    for g in node.gpus:
        name: Styled | str = na(g.name)
        if g.lost:
            name = Styled(f"{sanitise(g.name or 'GPU')} (LOST)", style="bold red")
        mig = NA if g.mig_mode_current is None else ("Enabled" if g.mig_mode_current else "Disabled")
        if g.mig_mode_pending is not None and g.mig_mode_pending != g.mig_mode_current:
            mig = Styled(f"{mig} -> {'Enabled' if g.mig_mode_pending else 'Disabled'}", style="yellow")
        t.add_row(
            str(g.index),
            name,
            on_off(g.persistence_mode),
            na(g.pci_bus_id),
            na(g.fan_percent, "{}%"),
            na(g.temperature_c, "{}C"),
            na(g.performance_state),
            _power(g),
            _mem(g.memory_used_mib, g.memory_total_mib),
            na(g.utilization_gpu, "{}%"),
            na(g.compute_mode),
            mig,
        )
    return t


ACTIVITY = "Activity SM/DRAM"


def _activity(gi: GpuInstance) -> Styled | str:
    """'64%/29%': GPM's SM and DRAM activity of the instance's own slices."""
    a = gi.activity
    if a is None or a.sm_active is None and a.dram_active is None:
        return NA
    sm = NA if a.sm_active is None else f"{a.sm_active}%"
    dram = NA if a.dram_active is None else f"{a.dram_active}%"
    return f"{sm}/{dram}"


def mig_table(node: NodeSnapshot) -> FitTable | None:
    rows: list[tuple[Styled | str, ...]] = []
    notes: list[Styled] = []  # the MIG UUIDs people copy, for when their column is left out
    remarks: list[Styled] = []
    # a column of GPM activity where a GPU has figures (nvidia-smi has none); a GPU without GPM says why once
    with_activity = any(gi.activity is not None for g in node.gpus for gi in g.gpu_instances)
    for g in node.gpus:
        if g.gpu_instances and g.activity_na:
            remarks.append(Styled(f"GPU {g.index}: activity N/A: {sanitise(g.activity_na)}", "dim"))
        for gi in g.gpu_instances:
            placement = NA if gi.placement_start is None else f"{gi.placement_start}:{na(gi.placement_size)}"
            cis = gi.compute_instances or ()
            if not cis:
                rows.append(
                    (
                        str(g.index),
                        na(gi.gi_id),
                        NA,
                        NA,
                        na(gi.profile),
                        placement,
                        na(gi.sm_count),
                        _mem(gi.memory_used_mib, gi.memory_total_mib),
                        *((_activity(gi),) if with_activity else ()),
                        Styled("(no compute instance)", "dim"),
                    )
                )
            for ci in cis:
                rows.append(
                    (
                        str(g.index),
                        na(gi.gi_id),
                        na(ci.ci_id),
                        na(ci.mig_device_index),
                        na(ci.profile or gi.profile),
                        placement,
                        na(ci.sm_count),
                        _mem(gi.memory_used_mib, gi.memory_total_mib),
                        *((_activity(gi),) if with_activity else ()),
                        na(ci.mig_uuid),
                    )
                )
                if ci.mig_uuid is not None:
                    r = rows[-1]
                    notes.append(Styled(f"GPU {r[0]} GI {r[1]} CI {r[2]}: {r[-1]}"))
    empty_mig = [str(g.index) for g in node.gpus if g.mig_mode_current and not g.gpu_instances]
    if not rows and not empty_mig:
        return None
    t = smi_table(
        "MIG devices",
        "GPU",
        "GI ID",
        "CI ID",
        "MIG Dev",
        "Profile",
        "Placement",
        "SM",
        "Memory-Usage (GI, shared)",
        *((ACTIVITY,) if with_activity else ()),
        "MIG UUID",
        right=("GPU", "GI ID", "CI ID", "MIG Dev", "SM", ACTIVITY),
    )
    t.notes = notes
    t.remarks = remarks
    if with_activity:
        t.legends[ACTIVITY] = Styled("Activity: NVML GPM over the last interval, of each instance's own slices", "dim")
    for r in rows:
        t.add_row(*r)
    for idx in empty_mig:
        blank = ("",) * (4 if with_activity else 3)
        t.add_row(idx, NA, NA, NA, Styled("MIG enabled, no GPU instances", style="yellow"), *blank, "")
    return t


def mps_table(node: NodeSnapshot) -> FitTable | None:
    gpus = [g for g in node.gpus if g.mps is not None]
    if not gpus:
        return None
    t = smi_table(
        "MPS",
        "GPU",
        "Daemon",
        "Server PID",
        "Pipe directory",
        "Client PID",
        "Threads",
        "Memory",
        "User",
        "Command",
        right=("GPU", "Server PID", "Client PID", "Threads", "Memory"),
    )
    t.full = [Styled(f"PID {c.pid}: {sanitise(c.command)}") for g in gpus if g.mps for c in g.mps.clients if c.command]
    for g in gpus:
        d = g.mps
        assert d is not None
        state = Styled("up", style="green") if d.running else Styled("down", style="red")
        if not d.clients:
            t.add_row(
                str(g.index), state, na(d.server_pid), na(d.pipe_directory), Styled("no clients", "dim"), "", "", "", ""
            )
        for i, c in enumerate(d.clients):
            head = (str(g.index), state, na(d.server_pid), na(d.pipe_directory)) if i == 0 else ("", "", "", "")
            t.add_row(
                *head,
                str(c.pid),
                na(c.active_thread_percentage, "{}%"),
                na(c.memory_used_mib, "{}MiB"),
                na(c.user),
                na(c.command),
            )
        total_pct = [c.active_thread_percentage for c in d.clients]
        if d.clients and all(p is not None for p in total_pct):
            pct = sum(p for p in total_pct if p is not None)
            style = "yellow" if pct > 100 else "dim"
            t.add_row("", "", "", "", Styled("total", "dim"), Styled(f"{pct}%", style), "", "", "")
    return t


def process_table(node: NodeSnapshot) -> FitTable:
    t = smi_table(
        "Processes",
        "GPU",
        "GI",
        "CI",
        "PID",
        "Type",
        "User",
        "Process name",
        "GPU Memory",
        right=("GPU", "GI", "CI", "PID", "GPU Memory"),
    )
    any_row = False
    t.full = [Styled(f"PID {p.pid}: {sanitise(p.command)}") for g in node.gpus for p in g.processes if p.command]
    for g in node.gpus:
        for p in g.processes:
            any_row = True
            t.add_row(
                str(g.index),
                na(p.gi_id),
                na(p.ci_id),
                str(p.pid),
                na(p.type),
                na(p.user),
                na(p.command),
                na(p.used_memory_mib, "{}MiB"),
            )
    if not any_row:
        t.add_row("", "", "", "", "", "", Styled("No running processes found", "dim"), "")
    return t


def size(mib: int) -> str:
    """Host memory for people: ``0 GiB``, ``500 MiB``, ``62.5 GiB``, ``512 GiB``, ``2 TiB``."""
    if mib == 0:
        return "0 GiB"
    if mib < 1024:
        return f"{mib} MiB"
    for unit, div in (("TiB", 1 << 20), ("GiB", 1024)):
        if mib >= div and (unit == "GiB" or mib % (div // 4) == 0):
            v = mib / div
            text = f"{v:.0f}" if v >= 100 or v == int(v) else f"{v:.1f}"
            return f"{text} {unit}"
    raise AssertionError(mib)  # pragma: no cover - the GiB branch always answers


def resources_line(res: NodeResources | None, features: tuple[str, ...] = ()) -> Styled | None:
    """``CPUs 64 (12 allocated) · memory 512 GiB (200 GiB allocated, 310 GiB in use) · features a100``;
    None when the source knows neither (nvidia-smi logs, old recordings)."""
    parts: list[Styled] = []
    if res is not None:
        cpus = Styled.assemble("CPUs ", Styled(str(res.cpus)) if res.cpus is not None else NA)
        if res.cpus_alloc is not None:
            cpus.append(f" ({res.cpus_alloc} allocated)")
        mem = Styled.assemble("memory ", Styled(size(res.memory_mib)) if res.memory_mib is not None else NA)
        said = [
            f"{size(v)} {what}"
            for v, what in ((res.memory_alloc_mib, "allocated"), (res.memory_used_mib, "in use"))
            if v is not None
        ]
        if said:
            mem.append(f" ({', '.join(said)})")
        parts += [cpus, mem]
    if features:
        parts.append(Styled("features " + ", ".join(sanitise(f) for f in features)))
    return Styled(" · ").join(parts) if parts else None


def node_view(node: NodeSnapshot) -> Iterator[Part]:
    head = Styled.assemble(
        (sanitise(node.name), "bold cyan"),
        f"   Driver Version: {na(node.driver_version)}   CUDA Version: {na(node.cuda_version)}",
    )
    yield head
    if node.fault is not None:
        yield Styled(sanitise(fault_line(node.fault)), style="bold red")
    line = resources_line(node.resources, node.features)
    if line is not None:
        yield line
    yield gpu_table(node)
    for extra in (mig_table(node), mps_table(node)):
        if extra is not None:
            yield extra
    yield process_table(node)


def snapshot_view(snap: ClusterSnapshot, nodes: Iterable[str] | None = None) -> list[Part]:
    """Everything `gputui snapshot` prints for one cluster snapshot: lines and tables."""
    wanted = set(nodes) if nodes else None
    parts: list[Part] = [Styled.assemble((utc(snap.timestamp), "bold"), f"   {sanitise(snap.source or '')}")]
    for node in snap.nodes:
        if wanted is None or node.name in wanted:
            parts.append(Styled(""))
            parts.extend(node_view(node))
    return parts


def layout(
    snap: ClusterSnapshot, nodes: Iterable[str] | None, term: Terminal, *, wide: bool = False
) -> tuple[list[Part], int]:
    """The lines and tables of the snapshot fitted to the terminal as nvidia-smi's table fits: the least important
    columns are left out (and named) when it is narrow, unless ``wide``; and the width to draw them at (wider than
    the terminal when the kept columns alone are)."""
    parts = snapshot_view(snap, nodes)
    whole = not term.is_terminal  # piped: free text that is cut is also given whole under its table
    width = max([term.width] + [p.fit(term.width, wide=wide, whole=whole) for p in parts if isinstance(p, FitTable)])
    return parts, width


def render(parts: list[Part], width: int, term: Terminal) -> str:
    """The parts as the terminal gets them: free lines wrapped at ``width``, tables with the lines under them
    (each of those on one line, however long)."""
    lines: list[Styled] = []
    for part in parts:
        if isinstance(part, FitTable):
            lines += part.lines(ascii_only=term.ascii_only)
            lines += part.footer()
        else:
            lines += wrap(part, width)
    return "".join(ansi(line, colour=term.colour, no_color=term.no_color) + "\n" for line in lines)


def print_snapshot(
    out: TextIO,
    snap: ClusterSnapshot,
    nodes: Iterable[str] | None = None,
    *,
    wide: bool = False,
    terminal: Terminal | None = None,
) -> None:
    """Write everything `gputui snapshot` prints to ``out``; ``terminal`` (width, colour) is found from ``out`` and
    the environment when not given."""
    term = Terminal.of(out) if terminal is None else terminal
    parts, width = layout(snap, nodes, term, wide=wide)
    out.write(render(parts, width, term))
