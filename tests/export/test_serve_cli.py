"""`gputui serve` from the command line: the per-tab command, read-only by default, the errors a user can cause."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from gputui.cli import build_parser, main
from gputui.cli.serve_cmd import dashboard_argv


def _args(*argv: str):  # type: ignore[no-untyped-def]
    return build_parser("serve").parse_args(["serve", *argv])


def test_the_tab_command_is_the_same_argv_after_the_shell(tmp_path: Path) -> None:
    odd = tmp_path / "run; rm -rf ~ $(id) 'x'.gtrec"
    odd.write_bytes(b"")
    args = _args(str(odd), "--theme", "gputui-light", "--interval", "2")
    argv = dashboard_argv(args)
    assert argv == [sys.executable, "-m", "gputui", "ui", str(odd.resolve()), "--readonly", "--theme", "gputui-light",
                    "--interval", "2.0"]  # fmt: skip
    assert shlex.split(shlex.join(argv)) == argv  # what textual-serve's shell runs: one argument each, nothing run


def test_readonly_by_default_and_loopback_by_default() -> None:
    args = _args("demo")
    assert args.readonly is True and args.host == "127.0.0.1"
    assert "--readonly" not in dashboard_argv(_args("demo", "--no-readonly"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "demo", "--port", "0"], "must be a number from 1 to 65535"),
        (["serve", "no-such.gtrec"], "no such file"),
        (["serve", "demo", "--interval", "-1"], "must be more than 0 seconds"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_without_textual_serve_it_says_which_extra(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)  # import fails as if not installed
    assert main(["serve", "demo"]) == 2
    assert "pip install 'gputui[serve]'" in capsys.readouterr().err
