"""The theme given at start is in place before the app runs, without Textual's theme-change refresh (which
parses all CSS again twice); Textual's own way remains the fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gputui.cli.source_factory import open_source
from gputui.ui import GputuiApp, create_app


@pytest.fixture
def demo():  # type: ignore[no-untyped-def]
    opened = open_source("demo")
    yield opened.source
    opened.source.close()


def test_the_start_theme_needs_no_css_refresh(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = create_app(demo, theme="gputui-light", themes_path=tmp_path)
    assert app.theme == "gputui-light"
    assert {"-theme-gputui-light", "-light-mode"} <= set(app.classes) and "-dark-mode" not in app.classes
    assert app._css_update_count == 0  # nothing invalidated: the first screen is styled once
    light = app.get_css_variables()["background"]
    assert app.stylesheet._variables["background"] == light
    dark = create_app(demo, themes_path=tmp_path)
    assert dark.stylesheet._variables["background"] != light and "-dark-mode" in dark.classes


def test_without_the_internals_textual_sets_the_theme(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    real = GputuiApp.set_reactive

    def gone(self: GputuiApp, reactive: Any, value: Any) -> None:
        if reactive.name == "theme":  # as if this Textual had no set_reactive for it
            raise AttributeError("set_reactive")
        real(self, reactive, value)

    monkeypatch.setattr(GputuiApp, "set_reactive", gone)
    app = create_app(demo, theme="gputui-contrast", themes_path=tmp_path)
    assert app.theme == "gputui-contrast" and app._css_update_count == 1  # Textual's watcher ran


async def test_a_theme_change_while_running_still_restyles(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = create_app(demo, theme="gputui-dark", poll_interval=3600, themes_path=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.wait_for_polls()
        await pilot.pause()
        before = app.stylesheet._variables["background"]
        await pilot.press("t")
        await pilot.pause()
        assert app.theme == "gputui-light" and "-light-mode" in app.classes
        assert app.stylesheet._variables["background"] != before


async def test_each_css_source_is_parsed_once_from_start_to_every_view(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Textual's refresh at each view's first showing re-parsed every source (app.tcss three times before the
    first frame); with unchanged variables only its re-parse is skipped (parsed_as_is)."""
    import textual.css.stylesheet as sheet_module

    parsed: list[object] = []
    real = sheet_module.parse

    def counting(scope, css, read_from, **kw):  # type: ignore[no-untyped-def]
        parsed.append((read_from, kw.get("tie_breaker"), scope))  # Textual's parse-cache key, less the text
        return real(scope, css, read_from, **kw)

    monkeypatch.setattr(sheet_module, "parse", counting)
    app = create_app(demo, poll_interval=3600, themes_path=tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.wait_for_polls()
        await pilot.pause()
        for key in ("2", "3", "4", "1"):
            await pilot.press(key)
            await pilot.pause()
        from collections import Counter

        twice = [k for k, n in Counter(map(str, parsed)).items() if n > 1]
        assert parsed and not twice, twice
        count = len(parsed)
        await pilot.press("t")  # other variables: everything is parsed again, as Textual does
        await pilot.pause()
        assert len(parsed) > count
