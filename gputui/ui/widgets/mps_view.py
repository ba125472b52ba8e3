"""The MPS section of the detail pane: daemon state, clients, and their totals against the GPU."""

from __future__ import annotations

from rich.text import Text

from gputui.core.model import GpuSnapshot
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.text_panel import TextPanel


def _field(label: str, value: object, p: Palette) -> Text:
    if value is None:
        return Text.assemble((label, p.muted), " ", ("N/A", p.na))
    return Text.assemble((label, p.muted), " ", (str(value), p.text))


def render_mps(gpu: GpuSnapshot, p: Palette = PLAIN, width: int = 100) -> Text:
    """Daemon up/down, pipe directory, server PID, clients, and the thread and memory sums."""
    mps = gpu.mps
    if mps is None:
        return Text.assemble(("MPS", "bold"), " ", ("N/A", p.na), ("  (not reported by this source)", p.muted))
    if not mps.running:
        return Text.assemble(("MPS", "bold"), " ", ("daemon down", p.muted))
    t = Text.assemble(("MPS", "bold"), " ", ("daemon up", p.mps), "  ")
    t.append_text(Text("  ").join([_field("control pid", mps.control_pid, p), _field("server pid", mps.server_pid, p)]))
    t.append("\n")
    t.append_text(Text("  ").join([_field("pipe", mps.pipe_directory, p), _field("log", mps.log_directory, p)]))
    if not mps.clients:
        t.append("\nno clients", style=p.muted)
        return t
    threads = [c.active_thread_percentage for c in mps.clients]
    mems = [c.memory_used_mib for c in mps.clients]
    # each client's SM share where NVML gives per-process utilisation (a column only then: most sources have none)
    with_sm = any(c.sm_util is not None for c in mps.clients)
    for c in mps.clients:
        t.append(f"\n  {c.pid:>7} ", style=p.text)
        t.append(f"{(c.user or 'N/A'):<10.10} ", style=p.text if c.user else p.na)
        pct, mem = c.active_thread_percentage, c.memory_used_mib
        if pct is None:
            t.append("N/A threads ", style=p.na)
        else:
            t.append(f"{pct:>3d}% threads ", style=p.text)
        if with_sm:
            if c.sm_util is None:
                t.append("SM  N/A ", style=p.na)
            else:
                t.append(f"SM {c.sm_util:>3d}% ", style=p.text)
        if mem is None:
            t.append("    N/A MiB ", style=p.na)
        else:
            t.append(f"{mem:>7} MiB ", style=p.text)
        room = max(0, width - 47 - (8 if with_sm else 0))  # what the pid, user, threads, SM and memory fields leave
        command = c.command or ""
        t.append(command if len(command) <= room else command[: max(0, room - 1)] + "…", style=p.muted)
    known_threads = [x for x in threads if x is not None]
    total = sum(known_threads)
    t.append("\nthreads ", style=p.muted)
    t.append(f"{total}% of 100%", style=p.warn if total > 100 else p.text)
    if total > 100:
        t.append(" ⚠ oversubscribed: clients share SMs", style=p.warn)
    if len(known_threads) < len(threads):
        t.append(f" ({len(threads) - len(known_threads)} N/A)", style=p.na)
    known_mem = [x for x in mems if x is not None]
    mem_sum = sum(known_mem)
    t.append("   memory ", style=p.muted)
    if gpu.memory_total_mib is None:
        t.append(f"{mem_sum} MiB of N/A", style=p.text)
    else:
        over = mem_sum > gpu.memory_total_mib
        t.append(f"{mem_sum} of {gpu.memory_total_mib} MiB", style=p.warn if over else p.text)
        if over:
            t.append(" ⚠ clients claim more than the GPU has", style=p.warn)
    if len(known_mem) < len(mems):
        t.append(f" ({len(mems) - len(known_mem)} N/A)", style=p.na)
    return t


class MpsPanel(TextPanel):
    """Shows ``render_mps`` for the GPU it is given."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._gpu: GpuSnapshot | None = None
        self._key: object = None

    def show(self, gpu: GpuSnapshot | None) -> None:
        key = None if gpu is None else (gpu.mps, gpu.memory_total_mib)
        if gpu is not None and key == self._key:
            return  # the MPS daemon and the GPU's size are all this panel draws from
        self._gpu, self._key = gpu, key
        self._draw()

    def _draw(self) -> None:
        gpu = self._gpu
        self.show_text(Text("") if gpu is None else render_mps(gpu, self.palette, self.size.width or 100))

    def on_resize(self) -> None:
        super().on_resize()
        self._draw()
