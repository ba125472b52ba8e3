"""Hand a widget's own line strips to the compositor without Textual's per-line style pass.

Textual's StylesCache draws borders, padding, tint and opacity around every line a widget
renders, and reads a dozen style properties per line to do so: about 0.1 ms a line, more than
the table's own drawing. Widgets that have none of those styles and whose ``render_line``
already draws full-width, cached strips can skip it; anything else takes Textual's path.
Their strips hold only true colours (theme colours are parsed to RGB) and no 'dim', so Textual's
ANSI-to-truecolor filter would return them unchanged and is skipped; other filters still apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style
from textual.filter import ANSIToTruecolor
from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from gputui.ui.render.byte_bound import REFIT_EVERY, ByteBound, frame_bytes, pair_bytes

#: bytes per generation of the widened strips kept per widget, until the first frame sizes it (byte_bound.py)
FINAL_BUDGET = 64 * 1024

# A plain mixin, not a Widget subclass: Textual inherits CSS along the first DOM base class only.
_Base: Any = Widget if TYPE_CHECKING else object


def plain_box(widget: Widget) -> bool:
    """True when ``widget`` has no border, outline, padding, tint, opacity or hatch to draw."""
    styles = widget.styles
    return (
        not any(styles.gutter)
        and not any(edge for edge, _ in styles.outline)
        and not styles.tint.a
        and widget.opacity == 1.0
        and styles.text_opacity == 1.0
        and not (styles.has_rule("hatch") and styles.hatch != "none")
        and widget._border_title is None
        and widget._border_subtitle is None
    )


class DirectLines(_Base):
    """Mixin for a Widget: ``render_lines`` straight from ``render_line`` when the widget has a plain box."""

    _direct_ok: bool | None = None
    _direct_final: ByteBound[tuple[Strip, Strip]]
    _base_style: Style | None = None
    _direct_fits = 0  # calls since the cache was last sized (ByteBound.fit), modulo REFIT_EVERY

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._direct_ok = None
        self._direct_final = ByteBound(FINAL_BUDGET, pair_bytes)
        self._base_style = None

    @property
    def base_style(self) -> Style:
        """The widget's ``rich_style``, kept until its styles change (working it out walks the ancestors)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def render_strips(self, ys: range) -> list[Strip]:
        """The widget's own strips for lines ``ys``; widgets override it to share per-call work."""
        return [self.render_line(y) for y in ys]

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._direct_ok is None:
            self._direct_ok = plain_box(self)
            self._direct_final = ByteBound(FINAL_BUDGET, pair_bytes)
        if not self._direct_ok:
            return super().render_lines(crop)
        width = self.outer_size.width
        filters = [f for f in self.app.get_line_filters() if not isinstance(f, ANSIToTruecolor)]
        background = self.background_colors[1] if filters else None
        final = self._direct_final
        out: list[Strip] = []
        for strip in self.render_strips(crop.line_range):
            hit = final.get(id(strip))
            if hit is not None and hit[0] is strip:  # the entry holds the strip: its id is not reused
                out.append(hit[1])
                continue
            full = strip.extend_cell_length(width, self.base_style) if strip.cell_length < width else strip
            for line_filter in filters:
                full = full.apply_filter(line_filter, background)  # type: ignore[arg-type]
            final.put(id(strip), (strip, full))
            out.append(full)
        self._direct_fits = (self._direct_fits + 1) % REFIT_EVERY
        if out and self._direct_fits == 1:  # a generation holds a few frames of this widget (its visible height)
            final.fit(2 * frame_bytes(out, self.outer_size.height))
        x1, x2 = crop.column_span
        if (x1, x2) != (0, width):
            out = [s.crop(x1, x2) for s in out]
        return out


class KeptLines(_Base):
    """Mixin for a styled container (border, padding, a screen): ``render_lines`` kept while nothing of it changed.

    The compositor asks every widget whose clip meets a change for all its lines at each update:
    a screen and the boxes around the tables are asked every second although their own lines
    (background, borders) stay the same. Textual's styles cache answers from its lines, but works
    out colours and filters for each call first; here the answer is kept as long as the cache
    holds the same lines, none of them dirty, for the same crop and line filters.
    """

    _kept: tuple[Region, list[Strip | None], list[Strip], list[object]] | None = None

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._kept = None

    def render_lines(self, crop: Region) -> list[Strip]:
        cache = self._styles_cache
        filters: list[object] = list(self.app.get_line_filters())
        kept = self._kept
        if kept is not None and kept[0] == crop and not cache._dirty_lines and kept[3] == filters:
            lines = cache._cache
            if all(lines.get(y) is strip for y, strip in zip(crop.line_range, kept[1], strict=True)):
                return kept[2]
        strips: list[Strip] = super().render_lines(crop)
        self._kept = (crop, [cache._cache.get(y) for y in crop.line_range], strips, filters)
        return strips


class KeptScrollBar(KeptLines, ScrollBar):
    """A scrollbar drawn again only when it changes (the compositor asks for it at every refresh)."""
