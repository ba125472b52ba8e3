"""The config file: read as data, every key optional, the command line wins, a bad file one line and ignored."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from gputui.cli import main
from gputui.cli.config_file import Config, apply_config, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_every_key_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, 'theme = "gputui-light"\ninterval = 2\nreadonly = true\nsource = "demo"\n'
                           '[overview]\nhide = ["power", "model"]\n')  # fmt: skip
    config, problem = load_config(path)
    assert problem is None
    assert config == Config(theme="gputui-light", interval=2.0, readonly=True, source="demo", hide=("power", "model"))


def test_no_file_is_the_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "none.toml") == (Config(), None)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("thme = 'x'", "unknown key 'thme'"),
        ("interval = 'fast'", "interval: expected a number"),
        ("interval = -1", "interval: expected seconds"),
        ("readonly = 1", "readonly: expected bool"),
        ("[overview]\nhide = ['fan']", "overview.hide: no column 'fan'"),
        ("theme = ", "Invalid value"),
        ("a = " + "[" * 5000 + "]" * 5000, ""),
        ("interval = 1" + "0" * 5000, "a number with too many digits"),
    ],
    ids=["unknown", "kind", "range", "bool", "column", "toml", "deep", "digits"],
)
def test_a_bad_file_is_one_line_and_ignored(tmp_path: Path, text: str, why: str) -> None:
    path = write(tmp_path, text)
    config, problem = load_config(path)
    assert config == Config() and problem is not None and "\n" not in problem
    assert problem.startswith(f"{path}: ") and why in problem and problem.endswith("ignoring the file")
    assert path.read_text() == text  # never touched


def test_the_command_line_wins() -> None:
    args = argparse.Namespace(source=None, theme="gputui-dark", interval=None, readonly=False, paused=False)
    apply_config(args, Config(theme="gputui-light", source="demo", interval=5.0, readonly=True))
    assert (args.source, args.theme, args.interval, args.readonly, args.paused) == (
        "demo",
        "gputui-dark",
        5.0,
        True,
        False,
    )


def test_the_configured_source_is_what_commands_open(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "gputui").mkdir()
    (tmp_path / "gputui" / "config.toml").write_text('source = "demo"\n')
    assert main(["snapshot", "--node", "node01"]) == 0
    assert "demo recording" in capsys.readouterr().out
    (tmp_path / "gputui" / "config.toml").write_text("source = 3\n")
    assert main(["snapshot", "demo", "--node", "node01"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "source: expected str; ignoring the file" in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[idle]\nthreshold = 10\nwindow = "30m"\n', (10, 1800.0)),
        ("[idle]\nwindow = 90\n", (None, 90.0)),
        ("[idle]\nthreshold = 0\n", "idle.threshold: expected a whole per cent from 1 to 100"),
        ('[idle]\nwindow = "soon"\n', "idle.window: 'soon' is not a duration"),
        ("[idle]\nspan = 3\n", "idle: unknown key 'span'"),
    ],
)
def test_the_idle_radar_settings(tmp_path: Path, text: str, expected: object) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    config, problem = load_config(path)
    if isinstance(expected, tuple):
        assert problem is None and (config.idle_threshold, config.idle_window_s) == expected
    else:
        assert config == Config() and problem is not None and str(expected) in problem


def test_gputui_idle_takes_the_configured_radar(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from conftest import FIXTURES

    (tmp_path / "gputui").mkdir()
    (tmp_path / "gputui" / "config.toml").write_text('[idle]\nthreshold = 2\nwindow = "12m"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["idle", str(FIXTURES / "recording" / "idle-held.gtrec"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["threshold_percent"], data["window_s"]) == (2, 720.0)
    assert main(["idle", str(FIXTURES / "recording" / "idle-held.gtrec"), "--json", "--window", "5m"]) == 0
    assert json.loads(capsys.readouterr().out)["window_s"] == 300.0  # the command line wins
