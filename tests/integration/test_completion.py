"""`gputui completion bash` completes subcommands and their options in a real bash (the script comes from the same
parser as the commands)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")


def complete(script: Path, words: list[str]) -> list[str]:
    line = " ".join(words)
    body = (
        f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; "
        f"COMP_POINT=${{#COMP_LINE}}; _shtab_gputui gputui {words[-1]} {words[-2]}; "
        "printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    out = subprocess.run(["bash", "-c", body], capture_output=True, text=True, timeout=30, check=True).stdout
    return out.split()


def test_bash_completes_subcommands_and_options(tmp_path: Path) -> None:
    script = tmp_path / "gputui.bash"
    made = subprocess.run([sys.executable, "-m", "gputui", "completion", "bash"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    script.write_text(made.stdout)
    assert complete(script, ["gputui", "sna"]) == ["snapshot"]
    assert "submit" in complete(script, ["gputui", "su"])
    assert complete(script, ["gputui", "snapshot", "--wi"]) == ["--wide"]
    assert "--test-only" in complete(script, ["gputui", "submit", "--te"])


def test_an_unknown_shell_is_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    from gputui.cli import main

    with pytest.raises(SystemExit) as e:
        main(["completion", "fish"])
    assert e.value.code == 2 and "invalid choice: 'fish'" in capsys.readouterr().err
