"""``python -m gputui.bench scheduler --compare REF``: an older commit and this tree, in turn, as ratios."""

from __future__ import annotations

import subprocess

import pytest

from gputui.bench.scheduler import main
from gputui.bench.scheduler.compare import ROOT

pytestmark = pytest.mark.skipif(
    not (ROOT / ".git").exists() or subprocess.run(["git", "-C", str(ROOT), "rev-parse"]).returncode != 0,
    reason="needs the git checkout gputui runs from",
)


def test_compare_runs_both_sides_and_says_whether_they_decide_alike(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--compare", "HEAD", "--sizes", "10", "--decisions", "40", "--rounds", "1", "--stream", "old"]) == 0
    out = capsys.readouterr().out
    row = [ln for ln in out.splitlines() if ln.split()[:1] == ["10"]]
    assert len(row) == 1, out
    cells = row[0].split()
    ref_us, this_us = float(cells[1]), float(cells[2])
    assert ref_us > 0 and this_us > 0 and cells[3].endswith("x")
    assert cells[-1] == "identical"  # HEAD and the tree it was checked out as schedule alike


def test_an_unknown_commit_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--compare", "no-such-commit-anywhere", "--sizes", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gputui.bench scheduler: --compare: no commit 'no-such-commit-anywhere' in {ROOT}"]


def test_bad_sizes_are_refused_by_the_parser() -> None:
    with pytest.raises(SystemExit) as e:
        main(["--sizes", "ten"])
    assert e.value.code == 2


def test_a_stream_the_old_commit_lacks_is_named_with_the_commit(capsys: pytest.CaptureFixture[str]) -> None:
    # 0df2e3c predates the new stream: its benchmark's workload() takes no stream
    assert main(["--compare", "0df2e3c", "--sizes", "10", "--decisions", "20", "--rounds", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["gputui.bench scheduler: 0df2e3c: its benchmark has no 'new' stream (try --stream old)"]
