"""The App's reach into Textual internals: the start-up theme without a CSS re-parse, view screens made without
one either, key bindings from the action registry, every screen of every mode, the quiet driver. Benchmark before
you edit (this package's note)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen

from gputui.dashboard.actions import ActionRegistry


def start_with_theme(app: App[Any], name: str) -> None:
    """Make ``name`` the theme before the app runs, as Textual's theme watcher would, without its refresh: that
    parses all CSS again twice (once for the change, once more for the first screen), about 40 ms of start-up,
    where the stylesheet can simply start with this theme's variables. Textual's own way is the fallback."""
    previous = app.theme
    try:
        app.set_reactive(App.theme, name)
        dark = app.current_theme.dark
        app.update_classes({f"-theme-{name}": True, "-dark-mode": dark, "-light-mode": not dark}, update=False)
        app._refresh_truecolor_filter(app.ansi_theme)
        app.stylesheet.set_variables(app.get_css_variables())
    except AttributeError:  # a Textual release without these internals
        with contextlib.suppress(AttributeError):
            app.set_reactive(App.theme, previous)  # so that setting the theme below is a change
        app.theme = name


def with_current_css(app: App[Any], make: Callable[[], Screen[Any]]) -> Callable[[], Screen[Any]]:
    """A mode's screen factory whose screens count as styled with the CSS as it is when they are made.

    Textual marks a new screen as behind every CSS change (count -1), so the first time each mode is shown it
    runs ``refresh_css``: the variables are set again, which empties the parse cache, and the whole stylesheet
    (app.tcss, jobs.tcss, every widget's DEFAULT_CSS) is parsed twice more, once in that refresh and once when
    the next widget class mounts (about 30-40 ms, a third of the start-up's CSS work). A screen made now is
    styled from the stylesheet as it is now; a later theme change still refreshes it as Textual does."""

    def build() -> Screen[Any]:
        screen = make()
        with contextlib.suppress(AttributeError):  # a Textual release without the counter: its own way
            screen._css_update_count = app._css_update_count
        return screen

    return build


def bind_registry(app: App[Any], registry: ActionRegistry) -> None:
    """Bind every key of the registry on the app (hidden: the key bar draws the registry itself)."""
    existing = app._bindings.key_to_bindings
    for spec in registry:
        for i, key in enumerate(spec.keys):
            if any(b.action == spec.action for b in existing.get(key, ())):
                continue  # Textual binds it already (ctrl+p)
            existing.setdefault(key, []).append(
                Binding(
                    key,
                    spec.action,
                    spec.title,
                    show=False,
                    key_display=spec.key_display if i == 0 else None,
                    priority=spec.opens_input,
                    id=f"gputui.{spec.name}",
                )
            )


def every_screen(app: App[Any]) -> Iterator[Screen[Any]]:
    """The screens of every mode's stack, the hidden modes' too."""
    for stack in app._screen_stacks.values():
        yield from stack


def quiet_driver_class(stock: type[Driver]) -> type[Driver]:
    """On Linux a driver whose input thread sleeps until input comes (see quiet_driver); Textual's own driver
    where a Textual release moved the internals it builds on."""
    try:
        from gputui.ui.render.quiet_driver import quiet_driver
    except ImportError:
        return stock
    return quiet_driver(stock)


def settle_heap() -> None:
    """After the first frame on a terminal: what exists now (modules, styles, widgets) lives as long as the app,
    so moving it out of the collector's sight makes each later collection scan only new objects, not the whole
    heap; and each refresh makes thousands of short-lived objects that reference counting frees, so collecting
    young objects every 700 allocations (the default) spends more time than it recovers."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
