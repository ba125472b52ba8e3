"""What `gputui simulate` prints and writes: the table, a terminal chart, the PNG plot, the progress bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gputui.core.errors import GputuiError
from gputui.core.plain_text import sanitise
from gputui.core.simulate.matrix import Summary

MARKERS = "ox+*#@%&=~"


@contextmanager
def progress(total: int) -> Iterator[Callable[[str], None]]:
    """A progress bar on stderr (nothing when stderr is not a terminal); yields ``advance(label)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda label: None
        return
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True) as bar:  # fmt: skip
        task = bar.add_task("", total=total)

        def advance(label: str) -> None:
            bar.update(task, advance=1, description=sanitise(label))

        yield advance


def _traces(summaries: list[Summary]) -> list[str]:
    return list(dict.fromkeys(s.trace for s in summaries))


def print_table(summaries: list[Summary], demand: int, elapsed: float, file: IO[str] | None = None,
                bounds: dict[str, float | None] | None = None) -> None:  # fmt: skip
    """The table of means; with ``bounds`` (trace -> the LP upper bound) a row for the bound and each policy's gap
    to it; an empty ``bounds`` says the bound needs HiGHS."""
    traces = _traces(summaries)
    seeds = max((len(s.runs) for s in summaries), default=0)
    table = Table(
        title=Text(f"GPU allocated (%) at {demand} % arrived demand, mean ± sd of {seeds} seeds"), min_width=60
    )
    table.add_column("policy")
    for t in traces:
        table.add_column(Text(sanitise(t)), justify="right")
    by = {(s.policy, s.trace): s for s in summaries}
    for pol in dict.fromkeys(s.policy for s in summaries):
        cells = []
        for t in traces:
            s = by.get((pol, t))
            if s is None or s.mean is None:
                cells.append(Text("-"))
            else:
                cells.append(Text(f"{s.mean:.2f} ± {s.sd:.2f}"))
        table.add_row(Text(sanitise(pol)), *cells)
    if bounds:
        table.add_section()
        table.add_row(Text("upper bound (LP)"), *[Text(_num(bounds.get(t))) for t in traces])
        for pol in dict.fromkeys(s.policy for s in summaries):
            gaps = []
            for t in traces:
                s, b = by.get((pol, t)), bounds.get(t)
                gaps.append(Text("-" if s is None or s.mean is None or b is None else f"{b - s.mean:.2f}"))
            table.add_row(Text(f"gap: {sanitise(pol)}"), *gaps)
    console = Console(file=file or sys.stdout, highlight=False)
    console.print(table)
    if bounds is not None and not bounds:
        console.print(Text("upper bound: needs HiGHS (pip install 'gputui[mig]')"))
    console.print(Text(f"{sum(len(s.runs) for s in summaries)} runs in {elapsed:.1f} s"))


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def chart_lines(series: dict[str, dict[int, float]], width: int = 66, height: int = 14,
                x_max: int | None = None) -> list[str]:  # fmt: skip
    """An ASCII line chart of several series (x: arrived %, y: %), one marker per series, with axes."""
    xs = [x for c in series.values() for x in c]
    if not xs:
        return []
    x_max = x_max or max(xs)
    x_lo = min(xs)
    span = max(1, x_max - x_lo)
    ys = [y for c in series.values() for y in c.values()]
    y_lo, y_hi = min(ys), max(ys)
    if y_hi - y_lo < 1:
        y_hi = y_lo + 1
    grid = [[" "] * width for _ in range(height)]
    for k, (_, curve) in enumerate(series.items()):
        mark = MARKERS[k % len(MARKERS)]
        for x, y in curve.items():
            col = min(width - 1, round((x - x_lo) / span * (width - 1)))
            row = height - 1 - min(height - 1, round((y - y_lo) / (y_hi - y_lo) * (height - 1)))
            grid[row][col] = mark
    out = []
    for i, cells in enumerate(grid):
        label = y_hi - i * (y_hi - y_lo) / (height - 1)
        out.append(f"{label:6.1f} |" + "".join(cells))
    out.append("       +" + "-" * width)
    ticks = [" "] * (width + 12)
    for x in range(-(-x_lo // 10) * 10, x_max + 1, 10):
        col = 8 + round((x - x_lo) / span * (width - 1))
        for j, ch in enumerate(str(x)):
            if col + j < len(ticks):
                ticks[col + j] = ch
    out.append("".join(ticks).rstrip() + "   arrived GPU demand (%)")
    out.append("  " + "   ".join(f"{MARKERS[k % len(MARKERS)]} {sanitise(n)}" for k, n in enumerate(series)))
    return out


def print_chart(summaries: list[Summary], file: IO[str] | None = None) -> None:
    out = file or sys.stdout
    for t in _traces(summaries):
        series = {s.policy: s.mean_curve() for s in summaries if s.trace == t}
        # the interesting part: from where the first pods start failing (near full) to the end
        top = max((x for c in series.values() for x in c), default=0)
        lo = 60 if top >= 100 else 0
        series = {p: {x: y for x, y in c.items() if x >= lo} for p, c in series.items()}
        print(f"\nGPU allocation (%) against arrived demand: {sanitise(t)}", file=out)
        for line in chart_lines(series):
            print(line, file=out)


def plot_available() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise GputuiError("--plot needs matplotlib: pip install 'gputui[plot]'") from None


def write_plot(summaries: list[Summary], path: str) -> None:
    """Allocation (top) and fragmentation (bottom) against arrived demand, one column per trace."""
    plot_available()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    traces = _traces(summaries)
    fig, axes = plt.subplots(2, len(traces), figsize=(4.5 * len(traces), 7), squeeze=False, sharex=True)
    for j, t in enumerate(traces):
        for s in (s for s in summaries if s.trace == t):
            for i, which in enumerate(("alloc", "frag")):
                c = s.mean_curve(which)
                axes[i][j].plot(list(c), list(c.values()), label=s.policy, linewidth=1.2)
        axes[0][j].set_title(t)
        axes[0][j].set_ylabel("GPU allocated (%)")
        axes[1][j].set_ylabel("GPU fragmented (%)")
        axes[1][j].set_xlabel("arrived GPU demand (%)")
        axes[0][j].set_xlim(60, None)
        axes[0][j].set_ylim(80, 100)
        axes[0][j].grid(alpha=0.3)
        axes[1][j].grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    save_plot(fig, path)


def save_plot(fig: Any, path: str) -> None:
    """Write a matplotlib figure for --plot and close it; a path that cannot be written is one line."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as e:
        raise GputuiError(f"--plot: cannot write {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
