"""Concrete colours for cell renderers, resolved once per theme from the app's CSS variables.

Table cells are Rich Text built in Python, which cannot read ``$variables``; resolving them here
keeps every colour decision in the theme, including for Textual's own themes (with fallbacks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.style import Style
from textual.color import Color, ColorParseError

# gputui variable -> Textual variable used when a theme (e.g. one of Textual's own) lacks it
_FALLBACKS = {
    "gauge-low": "success",
    "gauge-mid": "warning",
    "gauge-high": "error",
    "gauge-empty": "panel",
    "na": "foreground-darken-3",
    "lost": "error",
    "badge-mig": "accent",
    "badge-mps": "primary",
    "free": "success",
    "idle": "warning",
    "footer-key-foreground": "accent",
}


def _colour(variables: Mapping[str, str], name: str, background: Color) -> str:
    raw = variables.get(name) or variables.get(_FALLBACKS.get(name, ""), "") or variables.get("foreground", "#FFFFFF")
    try:
        c = Color.parse(raw)
    except ColorParseError:
        return "#FFFFFF"
    if c.a < 1.0:
        c = background.blend(c.with_alpha(1.0), c.a)
    return c.hex6


#: Temperatures (°C) drawn as warm and as hot, in the overview, the detail and the history graphs.
TEMP_WARM = 75
TEMP_HOT = 85


@dataclass(frozen=True, slots=True)
class Palette:
    """Rich styles for every kind of cell gputui draws."""

    gauge_low: Style
    gauge_mid: Style
    gauge_high: Style
    gauge_empty: Style
    na: Style
    lost: Style
    warn: Style
    mig: Style
    mps: Style
    free: Style
    idle: Style  # a unit held by a job and idle (the idle radar)
    text: Style
    muted: Style
    accent: Style
    key: Style  # a key in the top and bottom bars
    key_active: Style  # the key of the view shown now
    bar_text: Style
    bar_active: Style
    title: Style

    @classmethod
    def from_variables(cls, variables: Mapping[str, str]) -> Palette:
        try:
            background = Color.parse(variables.get("background", "#000000"))
        except ColorParseError:
            background = Color(0, 0, 0)

        def c(name: str) -> str:
            return _colour(variables, name, background)

        primary = Color.parse(c("primary"))
        on_primary = "#000000" if primary.brightness > 0.55 else "#FFFFFF"

        return cls(
            gauge_low=Style(color=c("gauge-low")),
            gauge_mid=Style(color=c("gauge-mid")),
            gauge_high=Style(color=c("gauge-high")),
            gauge_empty=Style(color=c("gauge-empty")),
            na=Style(color=c("na"), italic=True),
            lost=Style(color=c("lost"), bold=True),
            warn=Style(color=c("warning"), bold=True),
            mig=Style(color=c("badge-mig"), bold=True),
            mps=Style(color=c("badge-mps"), bold=True),
            free=Style(color=c("free")),
            idle=Style(color=c("idle"), bold=True, reverse=True),
            text=Style(color=c("foreground")),
            muted=Style(color=c("na")),
            accent=Style(color=c("accent"), bold=True),
            key=Style(color=c("footer-key-foreground"), bold=True),
            key_active=Style(color=on_primary, bgcolor=primary.hex6, bold=True),
            bar_text=Style(color=c("foreground")),
            bar_active=Style(color=c("foreground"), bold=True, underline=True),
            title=Style(color=c("primary"), bold=True),
        )

    def temp_level(self, celsius: float) -> Style:
        """The colour of a temperature: its own thresholds (data-centre GPUs slow down from about 85 °C), not the
        fill levels of utilisation and memory."""
        if celsius >= TEMP_HOT:
            return self.gauge_high
        if celsius >= TEMP_WARM:
            return self.gauge_mid
        return self.gauge_low

    def level(self, percent: float) -> Style:
        """The gauge colour for a fill level; thresholds at 50 % and 85 %."""
        if percent >= 85:
            return self.gauge_high
        if percent >= 50:
            return self.gauge_mid
        return self.gauge_low


#: Used before an app (and so a theme) exists, e.g. in pure renderer tests.
PLAIN = Palette.from_variables({})
