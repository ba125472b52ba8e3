"""`gputui snapshot` draws its tables without rich, and what it prints is what rich printed: byte for byte the output
of the rich implementation on real captures (tests/support/snapshot_golden/, written by it), and the same as rich's
rendering of the same fitted tables for random snapshots (wide East Asian characters, combining marks, emoji
sequences, control characters, which the sanitiser shows as escapes), random widths and terminals."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich_reference import rich_render
from strategies import clusters

from gputui.cli import main
from gputui.core.model import ClusterSnapshot, GpuSnapshot, MpsClient, MpsDaemon, NodeSnapshot, ProcessInfo
from gputui.render.smi_tables import layout, render
from gputui.render.styled import Styled
from gputui.render.terminal import Terminal
from gputui.resources import demo_recording
from gputui.sources.nvsmi import load_nvsmi_log
from gputui.sources.recording import RecordingReader

GOLDEN = Path(__file__).resolve().parent.parent / "support" / "snapshot_golden"
_SMI = FIXTURES / "nvidia-smi"
_TERMINAL_VARS = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "LINES", "TERM")


@pytest.mark.parametrize(
    ("golden", "argv", "env"),
    [
        ("demo-100s-w80", ["demo", "--at", "+100s"], {"COLUMNS": "80"}),
        ("demo-100s-w200", ["demo", "--at", "+100s"], {"COLUMNS": "200"}),
        ("demo-100s-w100-colour", ["demo", "--at", "+100s"], {"COLUMNS": "100", "FORCE_COLOR": "1"}),
        ("demo-last-w80-wide", ["demo", "--wide"], {"COLUMNS": "80"}),
        ("demo-last-node02-w80-nocolour", ["demo", "--node", "node02"],
         {"COLUMNS": "80", "FORCE_COLOR": "1", "NO_COLOR": "1"}),
        ("telegraf-a100-sxm4-v12-w80", [str(_SMI / "telegraf-a100-sxm4-v12.xml")], {"COLUMNS": "80"}),
        ("netdata-rtx-4090-driver-535-w80", [str(_SMI / "netdata-rtx-4090-driver-535.xml")], {"COLUMNS": "80"}),
    ],
)  # fmt: skip
def test_the_output_is_the_rich_implementations_byte_for_byte(capsys, monkeypatch, golden, argv, env) -> None:  # type: ignore[no-untyped-def]
    for name in _TERMINAL_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["snapshot", *argv]) == 0
    out = capsys.readouterr().out
    assert out == (GOLDEN / f"{golden}.txt").read_text(encoding="utf-8")


_TERMINALS = [
    Terminal(80, is_terminal=False, colour=False),
    Terminal(120, is_terminal=True, colour=True),
    Terminal(60, is_terminal=True, colour=True, no_color=True),
    Terminal(100, is_terminal=True, colour=False, ascii_only=True),
]


def _frames() -> list[ClusterSnapshot]:
    reader = RecordingReader(demo_recording())
    frames = [reader.frame(i) for i in (0, reader.frame_count // 2, reader.frame_count - 1)]
    reader.close()
    for name in ("telegraf-a100-sxm4-v12.xml", "telegraf-dual-a5000-v13.xml", "netdata-rtx-4090-driver-535.xml"):
        frames.append(load_nvsmi_log(FIXTURES / "nvidia-smi" / name).frames[-1])
    return frames


@pytest.mark.parametrize("term", _TERMINALS, ids=["piped-80", "colour-120", "no-color-60", "ascii-100"])
def test_real_captures_draw_as_rich_draws_them(term: Terminal) -> None:
    for snap in _frames():
        for wide in (False, True):
            parts, width = layout(snap, None, term, wide=wide)
            assert render(parts, width, term) == rich_render(parts, width, term)


# Characters that terminals draw in other widths than one cell, or that must never reach one raw
_HOSTILE = list("aZ9 -_/.:") + list("中文字ｱ한") + ["e\u0301", "\u0300", "\u200d", "\u200b", "\ufe0f", "👍🏽", "🏳️‍🌈"]
_HOSTILE += ["\x1b[31m", "\r", "\n", "\t", "\x9b", "\u202e", "\x00", "\u2028", "ß", "…"]
display_text = st.lists(st.sampled_from(_HOSTILE), max_size=24).map("".join) | st.text(max_size=24)
maybe_text = st.none() | display_text


@st.composite
def snapshots(draw: st.DrawFn) -> ClusterSnapshot:
    """Random snapshots whose strings are drawn from display-hostile text (plus the model's own random ones)."""
    base = draw(clusters)
    nodes = []
    for i in range(draw(st.integers(1, 2))):
        gpus = []
        for j in range(draw(st.integers(0, 3))):
            clients = tuple(
                MpsClient(pid=k + 1, user=draw(maybe_text), command=draw(maybe_text))
                for k in range(draw(st.integers(0, 2)))
            )
            gpus.append(
                GpuSnapshot(
                    index=j,
                    name=draw(maybe_text),
                    pci_bus_id=draw(maybe_text),
                    compute_mode=draw(maybe_text),
                    mps=MpsDaemon(running=draw(st.booleans()), pipe_directory=draw(maybe_text), clients=clients)
                    if clients
                    else None,
                    processes=tuple(
                        ProcessInfo(pid=100 + k, user=draw(maybe_text), command=draw(maybe_text))
                        for k in range(draw(st.integers(0, 3)))
                    ),
                    lost=draw(st.booleans()),
                )
            )
        nodes.append(
            NodeSnapshot(draw(display_text.filter(bool)) + str(i), gpus=tuple(gpus), driver_version=draw(maybe_text))
        )
    return ClusterSnapshot(base.timestamp, tuple(nodes) + base.nodes, draw(maybe_text))


terminals = st.builds(
    Terminal,
    width=st.integers(20, 220),
    is_terminal=st.booleans(),
    colour=st.booleans(),
    no_color=st.booleans(),
    ascii_only=st.booleans(),
)


@settings(max_examples=30, deadline=None)
@given(snap=snapshots(), term=terminals, wide=st.booleans())
def test_random_snapshots_draw_as_rich_draws_them(snap: ClusterSnapshot, term: Terminal, wide: bool) -> None:
    parts, width = layout(snap, None, term, wide=wide)
    out = render(parts, width, term)
    assert out == rich_render(parts, width, term)
    assert "\x1b" not in out or term.colour  # escapes only as the renderer's own colours
    assert not any(c in out for c in "\r\x9b\u202e\x00")


styles = st.sampled_from(["", "bold", "dim", "italic", "bold red", "bold cyan", "yellow", "green"])


@given(
    pieces=st.lists(
        st.tuples(display_text.map(lambda s: "".join(c for c in s if c.isprintable())), styles), max_size=6
    ),
    width=st.integers(1, 30),
    colour=st.booleans(),
)
def test_long_lines_wrap_as_rich_wraps_them(pieces: list[tuple[str, str]], width: int, colour: bool) -> None:
    line = Styled.assemble(*pieces)
    term = Terminal(width, is_terminal=colour, colour=colour)
    assert render([line], width, term) == rich_render([line], width, term)


class _Tty(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize(
    "env",
    [
        {}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": ""}, {"NO_COLOR": "1"}, {"NO_COLOR": ""}, {"TERM": "dumb"},
        {"TERM": "unknown", "FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"},
        {"COLUMNS": "132"}, {"COLUMNS": "abc"}, {"COLUMNS": "132", "TERM": "dumb"},
        {"COLUMNS": "132", "LINES": "40", "TERM": "dumb"}, {"TERM": "xterm-256color", "COLORTERM": "truecolor"},
    ],
)  # fmt: skip
def test_the_terminal_is_decided_as_rich_decides(tty: bool, env: dict[str, str]) -> None:
    stream = _Tty(tty)
    console = Console(file=stream, _environ=env, legacy_windows=False)
    term = Terminal.of(stream, env)
    assert (term.width, term.is_terminal, term.colour, term.no_color) == (
        console.width,
        console.is_terminal,
        console.color_system is not None,
        console.no_color,
    )


def test_a_snapshot_imports_no_rich() -> None:
    code = (
        "import sys; from gputui.cli import main; main(['snapshot', 'demo']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))"
    )
    env = {k: v for k, v in os.environ.items() if k not in _TERMINAL_VARS}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


_ONE_CELL = "".join(
    map(chr, [*range(0x20, 0x7F), *range(0xA0, 0xAD), *range(0xAE, 0x300), 0x2026, *range(0x2500, 0x25FD)])
)


@given(text=st.text(alphabet=_ONE_CELL, max_size=40), width=st.integers(0, 45))
def test_the_fast_path_measures_as_rich_does(text: str, width: int) -> None:
    from rich import cells as rich_cells

    from gputui.render import cells

    assert cells.single_cells(text)
    assert cells.cell_len(text) == rich_cells.cell_len(text) == len(text)
    assert cells.set_cell_size(text, width) == rich_cells.set_cell_size(text, width)
    if width:
        assert cells.chop_cells(text, width) == rich_cells.chop_cells(text, width)


_ANY_WIDTH = st.text(
    alphabet=st.one_of(
        st.sampled_from("‖▶■━●─ä€✓\u200d\ufe0f\u0301"),  # the replay line's marks, joiners, a combining accent
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
    ),
    max_size=30,
)


@given(text=_ANY_WIDTH)
def test_any_string_measures_as_rich_does_and_stays_out_of_richs_string_cache(text: str) -> None:
    from rich import cells as rich_cells

    from gputui.render import cells

    rich_cells.cached_cell_len.cache_clear()
    measured = cells.cell_len(text)
    joined = "\u200d" in text or "\ufe0f" in text
    assert rich_cells.cached_cell_len.cache_info().currsize == (1 if joined else 0)  # a joiner is never one cell
    assert measured == rich_cells.cell_len(text)
