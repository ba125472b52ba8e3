"""Styled lines for the one-shot output: plain text in pieces, each with a style name such as ``"bold red"``, turned
into ANSI SGR sequences as rich's Console writes them (the same bytes, so that ``gputui snapshot`` looks as it did
when it printed through rich, without rich's import).

Text here is data already made plain by :func:`gputui.core.plain_text.sanitise`: nothing in it is parsed (no
markup, no emoji codes); only the style names written in this package become escape sequences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gputui.render.cells import cell_len, chop_cells, set_cell_size

#: SGR codes of the style words used, in rich's order: attributes (bold, dim, italic) before the colour
_ATTRS = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}
_COLOURS = {
    "black": "30", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36",
    "white": "37",
}  # fmt: skip
_SGR: dict[tuple[str, bool], str] = {}
# compiled (and cached by re) on first use: only a line wider than the terminal is wrapped
_WORD = r"\s*\S+\s*"
_TRAILING_SPACE = r"\s+$"


def sgr(style: str, *, colour: bool = True) -> str:
    """The SGR parameters of ``style`` (``"1;31"`` for bold red), without the colour when ``colour`` is off (as
    NO_COLOR asks); empty for no style."""
    key = (style, colour)
    codes = _SGR.get(key)
    if codes is None:
        words = style.split()
        unknown = [w for w in words if w not in _ATTRS and w not in _COLOURS]
        if unknown:
            raise ValueError(f"unknown style word {unknown[0]!r}")
        attrs = [_ATTRS[w] for w in _ATTRS if w in words]
        fg = [_COLOURS[w] for w in words if w in _COLOURS][-1:] if colour else []
        codes = _SGR[key] = ";".join(attrs + fg)
    return codes


class Styled:
    """One line of text: ``pieces`` of (text, style); ``base`` is the style of the whole (what padding added to
    it takes, as rich's ``Text(..., style=...)``)."""

    __slots__ = ("base", "pieces")

    def __init__(self, text: str = "", style: str = "") -> None:
        self.base = style
        self.pieces: list[tuple[str, str]] = [(text, style)] if text else []

    @classmethod
    def assemble(cls, *parts: str | tuple[str, str] | Styled) -> Styled:
        """A line of pieces in turn: plain strings, (text, style) pairs, other lines."""
        out = cls()
        for part in parts:
            if isinstance(part, Styled):
                out.pieces += part.pieces
            elif isinstance(part, str):
                out.append(part)
            else:
                out.append(*part)
        return out

    @property
    def plain(self) -> str:
        return "".join(t for t, _ in self.pieces)

    @property
    def cell_len(self) -> int:
        return cell_len(self.plain)

    def __str__(self) -> str:
        return self.plain

    def __repr__(self) -> str:
        return f"Styled({self.pieces!r}, base={self.base!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Styled) and (self.base, self.pieces) == (other.base, other.pieces)

    __hash__ = None  # type: ignore[assignment]

    def append(self, text: str, style: str = "") -> Styled:
        if text:
            self.pieces.append((text, style))
        return self

    def join(self, lines: Iterable[Styled]) -> Styled:
        """The lines with this one between each two."""
        out = Styled()
        for i, line in enumerate(lines):
            if i:
                out.pieces += self.pieces
            out.pieces += line.pieces
        return out

    def sliced(self, start: int, end: int) -> Styled:
        """The characters ``start:end`` with their styles."""
        out = Styled()
        out.base = self.base
        at = 0
        for text, style in self.pieces:
            lo, hi = max(start, at), min(end, at + len(text))
            if lo < hi:
                out.pieces.append((text[lo - at : hi - at], style))
            at += len(text)
        return out

    def with_plain(self, plain: str) -> Styled:
        """The same styles over ``plain`` (cut or padded from this line's text): each character keeps the style of
        the one at its place, and characters past the end the line's base style."""
        out = self.sliced(0, len(plain))
        kept = sum(len(t) for t, _ in out.pieces)
        if kept < len(plain):
            out.pieces.append((plain[kept:], self.base))
        at = 0
        pieces = []
        for text, style in out.pieces:
            pieces.append((plain[at : at + len(text)], style))
            at += len(text)
        out.pieces = pieces
        return out


def ansi(line: Styled, *, colour: bool, no_color: bool = False) -> str:
    """The line as the terminal gets it: each piece wrapped in its SGR sequence when ``colour``."""
    if not colour:
        return line.plain
    out = []
    for text, style in line.pieces:
        codes = sgr(style, colour=not no_color) if style else ""
        out.append(f"\x1b[{codes}m{text}\x1b[0m" if codes and text else text)
    return "".join(out)


def wrap(line: Styled, width: int) -> list[Styled]:
    """The line word-wrapped to ``width`` cells as rich wraps printed text: words move to the next line, a word
    longer than the width is folded, whitespace past the width at a break is dropped."""
    plain = line.plain
    breaks = _divide(plain, width)
    bounds = [0, *breaks, len(plain)]
    out = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        part = line.sliced(lo, hi)
        text = plain[lo:hi]
        if len(text) > width:  # rich's rstrip_end: counts characters, not cells
            space = re.search(_TRAILING_SPACE, text)
            if space is not None:
                text = text[: len(text) - min(len(space.group(0)), len(text) - width)]
                part = part.sliced(0, len(text))
        if cell_len(text) > width:
            part = part.with_plain(set_cell_size(text, width))
        out.append(part)
    return out


def _divide(text: str, width: int) -> list[int]:
    """Where to break ``text`` to fit ``width`` (rich's ``divide_line`` with folding)."""
    breaks: list[int] = []
    offset = 0
    for m in re.finditer(_WORD, text):
        start, word = m.start(), m.group(0)  # the matches are contiguous, as rich's re.match chain
        length = cell_len(word.rstrip())
        if width - offset >= length:
            offset += cell_len(word)
        elif length > width:
            folded = chop_cells(word, width)
            for i, piece in enumerate(folded):
                if start:
                    breaks.append(start)
                if i == len(folded) - 1:
                    offset = cell_len(piece)
                else:
                    start += len(piece)
        elif offset and start:
            breaks.append(start)
            offset = cell_len(word)
    return breaks
