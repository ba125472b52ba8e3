"""Rich renderables that show a snapshot the way `nvidia-smi` does: node resources, GPUs, MIG devices, MPS,
processes. Every string from the snapshot passes :func:`~gputui.core.plain_text.sanitise` and is shown as plain
text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeResources, NodeSnapshot
from gputui.core.node_faults import fault_line
from gputui.core.plain_text import sanitise
from gputui.render.fit_table import FitTable, smi_table

NA = Text("N/A", style="dim")


def na(value: object, fmt: str = "{}") -> Text:
    """The value formatted (a string sanitised) as plain Text, never markup; a dim N/A when the source did not
    have it."""
    if value is None:
        return NA
    return Text(fmt.format(sanitise(value) if isinstance(value, str) else value))


def on_off(value: bool | None) -> Text | str:
    return NA if value is None else ("On" if value else "Off")


def utc(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _mem(used: int | None, total: int | None) -> Text | str:
    if used is None and total is None:
        return NA
    return f"{_mib(used)} / {_mib(total)}"


def _mib(value: int | None) -> str:
    return "N/A" if value is None else f"{value}MiB"  # N/A never carries a unit


def _power(gpu: GpuSnapshot) -> Text | str:
    if gpu.power_draw_w is None and gpu.power_limit_w is None:
        return NA
    # whole watts truncated, as nvidia-smi's table prints them (37.62 W shows as 37W)
    draw = "N/A" if gpu.power_draw_w is None else f"{int(gpu.power_draw_w)}W"
    cap = "N/A" if gpu.power_limit_w is None else f"{int(gpu.power_limit_w)}W"
    return f"{draw} / {cap}"


def gpu_table(node: NodeSnapshot) -> Table:
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
        name: Text | str = na(g.name)
        if g.lost:
            name = Text(f"{sanitise(g.name or 'GPU')} (LOST)", style="bold red")
        mig = NA if g.mig_mode_current is None else ("Enabled" if g.mig_mode_current else "Disabled")
        if g.mig_mode_pending is not None and g.mig_mode_pending != g.mig_mode_current:
            mig = Text(f"{mig} -> {'Enabled' if g.mig_mode_pending else 'Disabled'}", style="yellow")
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


def mig_table(node: NodeSnapshot) -> Table | None:
    rows: list[tuple[Text | str, ...]] = []
    notes: list[Text] = []  # the MIG UUIDs people copy, for when their column is left out
    for g in node.gpus:
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
                        Text("(no compute instance)", "dim"),
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
                        na(ci.mig_uuid),
                    )
                )
                if ci.mig_uuid is not None:
                    r = rows[-1]
                    notes.append(Text(f"GPU {r[0]} GI {r[1]} CI {r[2]}: {r[8]}"))
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
        "MIG UUID",
        right=("GPU", "GI ID", "CI ID", "MIG Dev", "SM"),
    )
    t.notes = notes
    for r in rows:
        t.add_row(*r)
    for idx in empty_mig:
        t.add_row(idx, NA, NA, NA, Text("MIG enabled, no GPU instances", style="yellow"), "", "", "", "")
    return t


def mps_table(node: NodeSnapshot) -> Table | None:
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
    t.full = [Text(f"PID {c.pid}: {sanitise(c.command)}") for g in gpus if g.mps for c in g.mps.clients if c.command]
    for g in gpus:
        d = g.mps
        assert d is not None
        state = Text("up", style="green") if d.running else Text("down", style="red")
        if not d.clients:
            t.add_row(
                str(g.index), state, na(d.server_pid), na(d.pipe_directory), Text("no clients", "dim"), "", "", "", ""
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
            t.add_row("", "", "", "", Text("total", "dim"), Text(f"{pct}%", style), "", "", "")
    return t


def process_table(node: NodeSnapshot) -> Table:
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
    t.full = [Text(f"PID {p.pid}: {sanitise(p.command)}") for g in node.gpus for p in g.processes if p.command]
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
        t.add_row("", "", "", "", "", "", Text("No running processes found", "dim"), "")
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


def resources_line(res: NodeResources | None, features: tuple[str, ...] = ()) -> Text | None:
    """``CPUs 64 (12 allocated) · memory 512 GiB (200 GiB allocated, 310 GiB in use) · features a100``;
    None when the source knows neither (nvidia-smi logs, old recordings)."""
    parts: list[Text] = []
    if res is not None:
        cpus = Text("CPUs ")
        cpus.append_text(Text(str(res.cpus)) if res.cpus is not None else NA)
        if res.cpus_alloc is not None:
            cpus.append(f" ({res.cpus_alloc} allocated)")
        mem = Text("memory ")
        mem.append_text(Text(size(res.memory_mib)) if res.memory_mib is not None else NA)
        said = [
            f"{size(v)} {what}"
            for v, what in ((res.memory_alloc_mib, "allocated"), (res.memory_used_mib, "in use"))
            if v is not None
        ]
        if said:
            mem.append(f" ({', '.join(said)})")
        parts += [cpus, mem]
    if features:
        parts.append(Text("features " + ", ".join(sanitise(f) for f in features)))
    return Text(" · ").join(parts) if parts else None


def node_view(node: NodeSnapshot) -> Iterator[RenderableType]:
    head = Text.assemble(
        (sanitise(node.name), "bold cyan"),
        f"   Driver Version: {na(node.driver_version)}   CUDA Version: {na(node.cuda_version)}",
    )
    yield head
    if node.fault is not None:
        yield Text(sanitise(fault_line(node.fault)), style="bold red")
    line = resources_line(node.resources, node.features)
    if line is not None:
        yield line
    yield gpu_table(node)
    for extra in (mig_table(node), mps_table(node)):
        if extra is not None:
            yield extra
    yield process_table(node)


def snapshot_view(snap: ClusterSnapshot, nodes: Iterable[str] | None = None) -> Group:
    """Everything `gputui snapshot` prints for one cluster snapshot."""
    wanted = set(nodes) if nodes else None
    parts: list[RenderableType] = [
        Text.assemble((utc(snap.timestamp), "bold"), f"   {sanitise(snap.source or '')}", style=""),
    ]
    for node in snap.nodes:
        if wanted is None or node.name in wanted:
            parts.append(Text(""))
            parts.extend(node_view(node))
    return Group(*parts)


def print_snapshot(
    console: Console, snap: ClusterSnapshot, nodes: Iterable[str] | None = None, *, wide: bool = False
) -> None:
    """Print the snapshot to fit the terminal as nvidia-smi's table does: the least important columns are left
    out (and named) when it is narrow, unless ``wide``; piped, free text wraps instead of being cut."""
    parts = snapshot_view(snap, nodes).renderables
    whole = not console.is_terminal
    width = max(
        [console.width] + [p.fit(console.width, wide=wide, whole=whole) for p in parts if isinstance(p, FitTable)]
    )
    if width > console.width:
        console = Console(
            file=console.file,
            width=width,
            highlight=False,
            markup=False,
            emoji=False,
            force_terminal=console.is_terminal,
            color_system=console.color_system or None,  # type: ignore[arg-type]
            no_color=console.no_color,
        )
    for part in parts:
        console.print(part, crop=False)
        if isinstance(part, FitTable):
            for line in part.footer():
                console.print(line, crop=False, soft_wrap=True)
