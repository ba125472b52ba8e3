"""The three built-in colour themes and the lookup that turns a user's --theme NAME into one.

Besides Textual's colour system each theme sets gputui's own variables (gauge levels, N/A, lost,
MIG and MPS badges) so that both the .tcss and the cell renderers draw from one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.theme import Theme

from gputui.core.errors import GputuiError

DEFAULT_THEME = "gputui-dark"

GPUTUI_DARK = Theme(
    name="gputui-dark",
    primary="#4C9BE8",
    secondary="#5B7A99",
    accent="#E0A84A",
    warning="#E8B339",
    error="#E5484D",
    success="#46A758",
    foreground="#D8DEE6",
    background="#10141A",
    surface="#171C24",
    panel="#1F2630",
    dark=True,
    variables={
        "gauge-low": "#46A758",
        "gauge-mid": "#E8B339",
        "gauge-high": "#E5484D",
        "gauge-empty": "#2C3440",
        "na": "#6B7684",
        "lost": "#FF4D5A",
        "badge-mig": "#B78CF2",
        "badge-mps": "#3FB6C6",
        "free": "#7FB77E",
        "idle": "#F08A4B",
        "footer-key-foreground": "#E0A84A",
    },
)

GPUTUI_LIGHT = Theme(
    name="gputui-light",
    primary="#1F6FC5",
    secondary="#4E6A87",
    accent="#B3600B",
    warning="#B7791F",
    error="#C62828",
    success="#2E7D32",
    foreground="#1E2630",
    background="#F6F7F9",
    surface="#FFFFFF",
    panel="#E6EAF0",
    dark=False,
    variables={
        "gauge-low": "#2E7D32",
        "gauge-mid": "#B7791F",
        "gauge-high": "#C62828",
        "gauge-empty": "#D5DBE3",
        "na": "#8A94A0",
        "lost": "#C62828",
        "badge-mig": "#6A3FB5",
        "badge-mps": "#00838F",
        "free": "#2E7D32",
        "idle": "#C2410C",
    },
)

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies. Levels go
# blue -> yellow -> vermilion, never red against green, and every state also has a text cue.
GPUTUI_CONTRAST = Theme(
    name="gputui-contrast",
    primary="#56B4E9",
    secondary="#0072B2",
    accent="#F0E442",
    warning="#E69F00",
    error="#D55E00",
    success="#56B4E9",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    dark=True,
    luminosity_spread=0.25,
    text_alpha=1.0,
    variables={
        "gauge-low": "#56B4E9",
        "gauge-mid": "#F0E442",
        "gauge-high": "#E69F00",
        "gauge-empty": "#3A3A3A",
        "na": "#BBBBBB",
        "lost": "#FF7F50",
        "badge-mig": "#CC79A7",
        "badge-mps": "#F0E442",
        "free": "#FFFFFF",
        "idle": "#E69F00",
        "footer-key-foreground": "#F0E442",
    },
)

THEMES: dict[str, Theme] = {t.name: t for t in (GPUTUI_DARK, GPUTUI_LIGHT, GPUTUI_CONTRAST)}


def resolve_theme(name: str | None, available: Iterable[str] = THEMES) -> str:
    """The theme ``name`` names ('dark' and 'gputui-dark' both work) among ``available``; GputuiError if none."""
    if name is None:
        return DEFAULT_THEME
    names = list(available)
    wanted = name.strip().lower()
    for candidate in (wanted, f"gputui-{wanted}"):
        if candidate in names:
            return candidate
    raise GputuiError(f"unknown theme {name!r}: choose one of {', '.join(names)}")


def next_theme(current: str, names: Sequence[str] = tuple(THEMES)) -> str:
    """The theme after ``current`` in ``names`` (the built-in ones, then the user's); the first if not listed."""
    if current not in names:
        return names[0]
    return names[(names.index(current) + 1) % len(names)]
