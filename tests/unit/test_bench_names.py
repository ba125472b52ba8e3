"""`python -m gputui.bench NAME` finds every benchmark, those in the group folders too, and each has a main."""

from __future__ import annotations

import importlib

import pytest


def _names() -> dict[str, str]:
    mod = importlib.import_module("gputui.bench.__main__")
    return mod.benchmarks()


def test_every_benchmark_is_found_with_a_main() -> None:
    found = _names()
    for name in ("nvml_poll", "ssh_poll", "fuzz_files", "fuzz_requests", "scheduler", "oneshot", "rss"):
        assert name in found
    assert "sources" not in found and "fuzz" not in found  # group folders are not benchmarks
    for module in found.values():
        assert callable(importlib.import_module(module).main), module


def test_unknown_name_is_usage_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module("gputui.bench.__main__").main
    assert main(["no_such_bench"]) == 2
    assert "usage: python -m gputui.bench {" in capsys.readouterr().err
