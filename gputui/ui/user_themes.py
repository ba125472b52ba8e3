"""A user's own colour themes: TOML files in $XDG_CONFIG_HOME/gputui/themes/, read as data only.

Each file holds the fields of a ``textual.theme.Theme`` (``primary`` is required, every colour a
CSS colour such as '#268BD2') and an optional ``[variables]`` table for gputui's own colours
(gauge-low, gauge-mid, gauge-high, gauge-empty, na, lost, badge-mig, badge-mps, free, ...).
The theme is named by ``name`` or else by the file name. A file that cannot be read is
reported in one line and skipped; it never stops the dashboard.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from gputui.core.numbers import cut, shown

COLOUR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
NUMBER_FIELDS = ("luminosity_spread", "text_alpha")
OTHER_FIELDS = ("name", "dark", "variables")
MAX_BYTES = 64 * 1024


def themes_dir(environ: dict[str, str] | None = None) -> Path:
    """$XDG_CONFIG_HOME/gputui/themes, with ~/.config when XDG_CONFIG_HOME is unset or empty."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gputui" / "themes"


class ThemeFileError(ValueError):
    """One line saying what is wrong with a theme file."""


def _colour(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f'{field} must be a colour in quotes, such as "#268BD2"')
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{field} = {shown(value)} is not a colour") from None
    return value


def theme_from_data(data: dict[str, object], default_name: str) -> Theme:
    """A Theme from a parsed file; raises ThemeFileError naming the first problem."""
    unknown = sorted(set(data) - set(COLOUR_FIELDS) - set(NUMBER_FIELDS) - set(OTHER_FIELDS))
    if unknown:
        known = ", ".join(COLOUR_FIELDS)
        raise ThemeFileError(f"unknown key {shown(unknown[0])} (a theme has {known}, dark, variables)")
    if "primary" not in data:
        raise ThemeFileError("primary is missing (the one colour a theme needs)")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not re.fullmatch(r"[\w.+-]{1,64}", name.strip()):  # no space, no control
        raise ThemeFileError('name must be one word, such as "solarized-dark"')
    kwargs: dict[str, object] = {f: _colour(f, data[f]) for f in COLOUR_FIELDS if f in data}
    for f in NUMBER_FIELDS:
        if f in data:
            v = data[f]
            if not isinstance(v, int | float) or isinstance(v, bool) or not 0 <= v <= 1:
                raise ThemeFileError(f"{f} must be a number from 0 to 1")
            kwargs[f] = float(v)
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError("dark must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeFileError('[variables] must be a table of name = "colour"')
    checked = {str(k): _colour(f"variables.{cut(str(k))}", v) for k, v in variables.items()}
    return Theme(name=name.strip().lower(), dark=dark, variables=checked, **kwargs)  # type: ignore[arg-type]


def load_theme_file(path: Path) -> Theme:
    import tomllib  # only when there is a theme file to read

    try:
        if path.stat().st_size > MAX_BYTES:
            raise ThemeFileError(f"larger than {MAX_BYTES // 1024} KiB")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ThemeFileError(f"cannot be read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ThemeFileError("is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise ThemeFileError(f"is not valid TOML: {cut(str(e), 120)}") from None
    except ValueError as e:  # an integer of thousands of digits: Python's conversion limit
        raise ThemeFileError(f"holds a number too large to read ({cut(str(e), 80)})") from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise ThemeFileError("is nested too deeply to read") from None
    return theme_from_data(data, path.stem)


def load_user_themes(directory: Path | None = None, taken: Iterable[str] = ()) -> tuple[list[Theme], list[str]]:
    """The themes in ``directory`` (default: ``themes_dir()``) and one line per file skipped.

    A name in ``taken`` (a built-in theme) or already loaded from another file is skipped too.
    """
    folder = themes_dir() if directory is None else directory
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == ".toml" and p.is_file())
    except OSError:
        return [], []  # no theme folder: nothing to load, nothing to report
    themes: list[Theme] = []
    problems: list[str] = []
    names = set(taken)
    for path in paths:
        try:
            theme = load_theme_file(path)
        except ThemeFileError as e:
            problems.append(f"theme file {path}: {e}; skipped")
            continue
        if theme.name in names:
            problems.append(f"theme file {path}: the name {shown(theme.name)} is taken; skipped")
            continue
        names.add(theme.name)
        themes.append(theme)
    return themes, problems
