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
