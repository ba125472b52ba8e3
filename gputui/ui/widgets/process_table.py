"""The process table of the highlighted GPU, with MPS clients listed under their server."""

from __future__ import annotations

from rich.text import Text
from textual import events

from gputui.core.model import GpuSnapshot
from gputui.dashboard.occupancy import ProcessRow, process_rows
from gputui.ui.palette import PLAIN, Palette
from gputui.ui.render.cell_memo import CellMemo
from gputui.ui.render.row_table import ColumnSpec, RowTable
from gputui.ui.widgets import cells

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


def _pid(role: str, pid: int | None, p: Palette) -> Text:
    if role == "mps-client":
        return Text.assemble(("└ ", p.muted), (str(pid), p.text))
    if pid is None:
        return cells.na(p)
    return Text(str(pid), style=p.mps if role == "mps-server" else p.text)


def _gi_ci(gi_id: int | None, ci_id: int | None, p: Palette) -> Text:
    gi = "-" if gi_id is None else str(gi_id)
    ci = "-" if ci_id is None else str(ci_id)
    return Text(f"{gi}/{ci}", style=p.text if (gi_id, ci_id) != (None, None) else p.muted)


def _command(role: str, text: str | None, p: Palette) -> Text:
    command = Text(text or "", style=p.text if text else p.na, no_wrap=True, overflow="ellipsis")
    if not text:
        command.append("N/A")
    if role == "mps-server":
        command = Text.assemble(("[MPS server] ", p.mps), command)
    return command


def _memory(mib: int | None, p: Palette) -> Text:
    return cells.na(p) if mib is None else Text(f"{mib} MiB", style=p.text, justify="right")


def _threads(role: str, pct: int | None, p: Palette) -> Text:
    return Text("") if pct is None and role != "mps-client" else _opt(pct, p, "{}%")


def row_cells(r: ProcessRow, p: Palette, memo: CellMemo | None = None) -> list[Text]:
    """The cells of one process row; ``memo`` shares equal cells between refreshes."""
    m = memo if memo is not None else CellMemo()
    return [
        m.get(("pid", r.role, r.pid), _pid, r.role, r.pid, p),
        m.get(("user", r.user), _opt, r.user, p),
        m.get(("type", r.type), _opt, r.type, p),
        m.get(("gici", r.gi_id, r.ci_id), _gi_ci, r.gi_id, r.ci_id, p),
        m.get(("mem", r.memory_mib), _memory, r.memory_mib, p),
        m.get(("thr", r.role, r.thread_percentage), _threads, r.role, r.thread_percentage, p),
        m.get(("cmd", r.role, r.command), _command, r.role, r.command, p),
    ]


def _sort_value(column: str, r: ProcessRow) -> object:
    return {
        "pid": r.pid,
        "user": r.user,
        "type": r.type,
        "gici": None if r.gi_id is None else (r.gi_id, r.ci_id if r.ci_id is not None else -1),
        "mem": r.memory_mib,
        "threads": r.thread_percentage,
        "command": r.command,
    }.get(column)


class ProcessTable(RowTable):
    """Processes of one GPU; refreshes by PID so the cursor stays on the process it was on."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.palette: Palette = PLAIN
        self._gpu: GpuSnapshot | None = None
        self._width = -1
        self._memo = CellMemo()
        self.sortable = frozenset(k for k, _, _ in _columns(80))

    def set_palette(self, palette: Palette) -> None:
        self.palette = palette
        self._memo.clear()
        self.invalidate()

    def row_cells(self, key: str, data: object) -> list[Text]:
        assert isinstance(data, ProcessRow)
        return row_cells(data, self.palette, self._memo)

    def sort_value(self, column: str, data: object) -> object:
        assert isinstance(data, ProcessRow)
        return _sort_value(column, data)

    def show(self, gpu: GpuSnapshot | None, *, force: bool = False) -> None:
        if gpu is self._gpu and not force:
            return
        self._gpu = gpu
        width = self.size.width or 80
        if width != self._width:
            self._width = width
            self._memo.clear()
            self.set_columns(_columns(width))
        self.sync([] if gpu is None else [(r.key, r) for r in process_rows(gpu)])

    def on_resize(self, event: events.Resize) -> None:
        self.show(self._gpu, force=True)
