"""Numbers bounded at parse time: a 5,000-digit value in any option, a limit SQLite cannot hold, a synthetic
cluster too large to plan: one line naming the option (exit 2), never a traceback or a stalled command."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from gputui.bench.fuzz.fuzz_requests import Checker, strategies
from gputui.cli import main
from gputui.core.scheduler import parse_options
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.hostlist import compress_hostlist

HUGE = "9" * 5000
PADDED = "0" * 5000 + "5"
CASES = [
    ("--gpus", f"--gpus={HUGE}"),
    ("--gpus", f"--gpus={PADDED}"),
    ("--gpus", f"--gpus=a100:{HUGE}"),
    ("--gres", f"--gres=gpu:{HUGE}"),
    ("--gpus", f"-G{HUGE}"),
    ("--gpus-per-node", f"--gpus-per-node={HUGE}"),
    ("--gpu-ids", f"--gpu-ids=0-{HUGE}"),
    ("--time", f"--time={HUGE}"),
    ("--time", f"--time=1-{HUGE}"),
    ("--time", "--time=999999999999999999999999"),
    ("--time", "--time=9999999999"),
    ("--mem-per-gpu", f"--mem-per-gpu={HUGE}"),
    ("--mem", "--mem=999999999999T"),
    ("--nodelist", f"--nodelist=node[1-{HUGE}]"),
    ("--nodelist", f"--nodelist=node[{PADDED}]"),
]


@pytest.mark.parametrize(("option", "word"), CASES, ids=[c[1][:24] for c in CASES])
def test_a_huge_number_is_refused_naming_its_option(option: str, word: str) -> None:
    with pytest.raises(RequestError) as e:
        parse_options([word, "true"])
    line = str(e.value)
    assert line.startswith(option + ":") and len(line) < 200, line


def test_the_command_line_says_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--synthetic", "n1:8:A100-40GB", "--", f"--gpus={HUGE}"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("gputui: --gpus: count") and "too large" in err


def test_a_time_limit_the_store_cannot_hold_is_refused_before_it(tmp_path: Path) -> None:
    checker = Checker(tmp_path)
    try:
        checker.check(["--time=999999999999999999999999", "--gpus=1"])
        assert checker.counts == {"preview": 0, "refused": 1, "stored": 0}
        checker.check(["--time=4294967294", "--gpus=1"])  # the longest limit Slurm takes is stored
        assert checker.counts["stored"] == 1
    finally:
        checker.close()


@pytest.mark.parametrize(
    "spec", ["n1:100000000:A100-40GB", "node[1-100000]:8:A100-40GB", f"n1:{HUGE}:A100-40GB", "n1:8:A100:cpus=" + HUGE]
)
def test_synthetic_specs_are_bounded(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--synthetic", spec, "--", "--gpus=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gputui: --synthetic:") and err.count("\n") == 1 and len(err) < 300


def test_node_names_with_huge_numbers_fold_as_they_are() -> None:
    assert compress_hostlist(["n" + HUGE, "n1", "n2"]) == f"n{HUGE},n[1-2]"


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(strategies())
def test_generated_hostile_requests_are_answered_or_refused_in_one_line(tmp_path_factory, words) -> None:  # type: ignore[no-untyped-def]
    # The quick subset; `python -m gputui.bench fuzz_requests` runs 10,000.
    checker = _checker(tmp_path_factory)
    checker.check(words)


_CHECKERS: dict[int, Checker] = {}


def _checker(factory) -> Checker:  # type: ignore[no-untyped-def]
    key = id(factory)
    if key not in _CHECKERS:
        _CHECKERS[key] = Checker(factory.mktemp("fuzz"))
    return _CHECKERS[key]
