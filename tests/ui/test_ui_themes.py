"""User theme files: read as data, selectable with --theme, 't' and the palette; a broken one is reported, not fatal."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ui_app import SIZE, settle
from test_ui_sample_data import replay

from gputui.core.errors import GputuiError
from gputui.ui import create_app
from gputui.ui.commands import ActionCommands
from gputui.ui.user_themes import ThemeFileError, load_user_themes, theme_from_data, themes_dir
from gputui.ui.widgets.overview import OverviewTable

GOOD = """
name = "Solar"
primary = "#268BD2"
background = "#002B36"
surface = "#073642"
foreground = "#EEE8D5"
dark = true

[variables]
lost = "#DC322F"
gauge-low = "#859900"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_the_theme_folder_follows_xdg_config_home() -> None:
    assert themes_dir({"XDG_CONFIG_HOME": "/cfg"}) == Path("/cfg/gputui/themes")
    assert themes_dir({"XDG_CONFIG_HOME": ""}).parts[-3:] == (".config", "gputui", "themes")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"background": "#000000"}, "primary is missing"),
        ({"primary": "#12345"}, "primary = '#12345' is not a colour"),
        ({"primary": 7}, "primary must be a colour"),
        ({"primary": "#fff", "colour": "#000"}, "unknown key 'colour'"),
        ({"primary": "#fff", "dark": "yes"}, "dark must be true or false"),
        ({"primary": "#fff", "variables": {"lost": "redish"}}, "variables.lost = 'redish' is not a colour"),
        ({"primary": "#fff", "name": "two words"}, "name must be one word"),
        ({"primary": "#fff", "text_alpha": 3}, "text_alpha must be a number from 0 to 1"),
    ],
)
def test_a_bad_theme_names_its_problem(data: dict[str, object], problem: str) -> None:
    with pytest.raises(ThemeFileError, match=problem):
        theme_from_data(data, "file")


def test_good_files_load_and_broken_ones_are_skipped_with_one_line_each(tmp_path: Path) -> None:
    write(tmp_path, "solar.toml", GOOD)
    write(tmp_path, "plain.toml", 'primary = "#AA5500"\n')
    write(tmp_path, "broken.toml", 'primary = "#fff"\nbackground = \n')
    write(tmp_path, "dup.toml", 'name = "plain"\nprimary = "#000000"\n')
    write(tmp_path, "builtin.toml", 'name = "gputui-dark"\nprimary = "#000000"\n')
    write(tmp_path, "notes.txt", "not a theme")
    themes, problems = load_user_themes(tmp_path, taken={"gputui-dark"})
    assert [t.name for t in themes] == ["plain", "solar"]  # files are read in name order: dup.toml first
    assert themes[0].primary == "#000000"
    solar = themes[1]
    assert solar.primary == "#268BD2" and solar.variables["lost"] == "#DC322F" and solar.dark
    assert len(problems) == 3
    assert any("broken.toml: is not valid TOML" in p for p in problems)
    assert any("plain.toml: the name 'plain' is taken" in p for p in problems)
    assert any("builtin.toml: the name 'gputui-dark' is taken" in p for p in problems)
    assert load_user_themes(tmp_path / "missing") == ([], [])


async def test_a_user_theme_is_chosen_by_name_cycled_to_and_offered_in_the_palette(tmp_path: Path) -> None:
    write(tmp_path, "solar.toml", GOOD)
    write(tmp_path, "broken.toml", "primary = [")
    with pytest.raises(GputuiError, match="unknown theme 'broken'"):
        create_app(replay(3), theme="broken", themes_path=tmp_path)
    app = create_app(replay(3), theme="solar", themes_path=tmp_path, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "solar"
        lost = app.screen.query_one(OverviewTable).get_row("node-b/0")[3].style
        assert str(lost.color).lower().endswith("#dc322f") or lost.color.triplet.hex.lower() == "#dc322f"
        # The broken file is reported in a notification, and the app runs on.
        assert any("broken.toml" in n.message and "skipped" in n.message for n in app._notifications)
        titles = [title for title, _, _ in ActionCommands(app.screen)._entries()]
        assert "View: Theme: solar" in titles
        await pilot.press("t")
        assert app.theme == "gputui-dark"  # after the user's theme the cycle starts over
        for _ in range(3):
            await pilot.press("t")
        assert app.theme == "solar"


async def test_a_broken_theme_folder_never_stops_the_app(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", "\x00\x01 not toml")
    write(tmp_path, "b.toml", "primary = '#FFF'\n[variables]\nlost = 5\n")
    (tmp_path / "c.toml").mkdir()  # a folder named like a theme file is not a file: ignored
    app = create_app(replay(3), themes_path=tmp_path, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "gputui-dark" and app.screen.query_one(OverviewTable).row_count == 6
        messages = [n.message for n in app._notifications]
        assert sum("theme file" in m for m in messages) == 2


HOSTILE_THEMES = {
    "deep-array.toml": "primary = '#FFF'\nx = " + "[" * 20000 + "]" * 20000 + "\n",
    "deep-table.toml": "primary = '#FFF'\nx = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
    "huge-int.toml": "primary = '#FFF'\nluminosity_spread = " + "9" * 5000 + "\n",
    "escape.toml": "name = \"x\\u001b]0;pwned\\u0007\"\nprimary = '#FFF'\n",
}


async def test_hostile_theme_files_are_reported_and_skipped(tmp_path: Path) -> None:
    for name, text in HOSTILE_THEMES.items():
        write(tmp_path, name, text)
    themes, problems = load_user_themes(tmp_path)
    assert themes == [] and len(problems) == len(HOSTILE_THEMES)
    assert any("deep-array.toml: is nested too deeply" in p for p in problems)
    assert any("huge-int.toml: holds a number too large" in p for p in problems)
    app = create_app(replay(3), themes_path=tmp_path, poll_interval=60)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.theme == "gputui-dark"
        messages = [n.message for n in app._notifications if "theme file" in n.message]
        assert len(messages) == len(HOSTILE_THEMES) and not any("\x1b" in m for m in messages)
