"""The process table of the highlighted GPU, with MPS clients listed under their server."""

from __future__ import annotations

from rich.text import Text
from textual import events

from gputui.core.model import GpuSnapshot
from gputui.ui import cells
from gputui.ui.occupancy import ProcessRow, process_rows
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.row_table import ColumnSpec, RowTable

_FIXED: list[ColumnSpec] = [
    ("pid", "PID", 9),
    ("user", "User", 10),
    ("type", "Type", 4),
    ("gici", "GI/CI", 5),
    ("mem", "Memory", 9),
    ("threads", "Thr%", 4),
]


def _columns(width: int) -> list[ColumnSpec]:
    used = sum(w + 2 for _, _, w in _FIXED) + 4
    return [*_FIXED, ("command", "Command", max(10, width - used))]


def _opt(value: object, p: Palette, fmt: str = "{}") -> Text:
    return cells.na(p) if value is None else Text(fmt.format(value), style=p.text)


def row_cells(r: ProcessRow, p: Palette) -> list[Text]:
    if r.role == "mps-client":
        pid = Text.assemble(("└ ", p.muted), (str(r.pid), p.text))
    elif r.pid is None:
        pid = cells.na(p)
    else:
        pid = Text(str(r.pid), style=p.mps if r.role == "mps-server" else p.text)
    gi = "-" if r.gi_id is None else str(r.gi_id)
    ci = "-" if r.ci_id is None else str(r.ci_id)
    command = Text(r.command or "", style=p.text if r.command else p.na, no_wrap=True, overflow="ellipsis")
    if not r.command:
        command.append("N/A")
    if r.role == "mps-server":
        command = Text.assemble(("[MPS server] ", p.mps), command)
    mem = cells.na(p) if r.memory_mib is None else Text(f"{r.memory_mib} MiB", style=p.text, justify="right")
    return [
        pid,
        _opt(r.user, p),
        _opt(r.type, p),
        Text(f"{gi}/{ci}", style=p.text if (r.gi_id, r.ci_id) != (None, None) else p.muted),
        mem,
        Text("") if r.thread_percentage is None and r.role != "mps-client" else _opt(r.thread_percentage, p, "{}%"),
        command,
    ]


class ProcessTable(RowTable):
    """Processes of one GPU; refreshes by PID so the cursor stays on the process it was on."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._gpu: GpuSnapshot | None = None
        self._width = -1

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        assert isinstance(data, ProcessRow)
        return row_cells(data, self.palette)

    def show(self, gpu: GpuSnapshot | None, *, force: bool = False) -> None:
        if gpu is self._gpu and not force:
            return
        self._gpu = gpu
        width = self.size.width or 80
        if width != self._width:
            self._width = width
            self.set_columns(_columns(width))
        self.sync([] if gpu is None else [(r.key, r) for r in process_rows(gpu)])

    def on_resize(self, event: events.Resize) -> None:
        self.show(self._gpu, force=True)
