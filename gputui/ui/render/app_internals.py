"""The App's reach into Textual internals: the start-up theme without a CSS re-parse, a CSS refresh without one
either when nothing it parses changed, CSS files added later without one, key bindings from the action registry,
every screen of every mode, the quiet driver. Benchmark before you edit (this package's note)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen

from gputui.dashboard.actions import ActionRegistry
from gputui.ui.render.process_memory import release_free_memory


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


@contextlib.contextmanager
def parsed_as_is(app: App[Any]) -> Iterator[None]:
    """Within it, Textual's ``refresh_css`` applies the stylesheet without parsing it again, when the CSS variables
    are those it was parsed with.

    Textual marks a new screen as behind every CSS change, so the first time each mode is shown it runs
    ``refresh_css``, which sets the variables again (emptying the parse cache) and re-parses the whole stylesheet
    (app.tcss, jobs.tcss, every widget's DEFAULT_CSS), and the next widget class to mount parses it all a third
    time: about 30-40 ms of start-up, and again at each view's first showing. With unchanged variables the parse
    would give the same rules, so only that is skipped; applying the styles and the layout refresh run as usual.
    A theme change (other variables) refreshes as Textual does."""
    sheet = app.stylesheet
    try:
        same = sheet._variables == app.get_css_variables()
    except AttributeError:  # a Textual release without these internals: its own way
        same = False
    if not same:
        yield
        return
    sheet.set_variables = lambda variables: None  # type: ignore[method-assign]
    sheet.reparse = lambda: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        del sheet.set_variables, sheet.reparse


def read_css_files(app: App[Any], paths: Iterable[Path]) -> None:
    """Add CSS files to the running app's stylesheet, parsing only them: Textual's way for a screen's own CSS_PATH
    re-parses every source in a fresh stylesheet (about 30-40 ms at the first showing). Nothing on screen is styled
    again (that would draw every widget anew): the files hold the rules of what is not shown yet, which widgets
    mounted later take up."""
    sheet = app.stylesheet
    for path in paths:
        if not sheet.has_source(str(path), ""):
            sheet.read(path)
    sheet.parse()  # the sources parsed already come from the parse cache


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
    release_free_memory()  # start-up's temporaries (process_memory.py)
