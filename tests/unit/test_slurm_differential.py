"""The differential check from its fixture, without Slurm: every case the lab ran (fixtures/slurm/
22.05-differential.json, captured by tests/support/slurm_diff.py on the Slurm 22.05 lab) replayed through gputui's
Slurm source and what-if, and compared with what Slurm did. The live version (tests/integration/test_slurm_live.py)
recaptures it on the lab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from slurm_diff import replay, report

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "slurm" / "22.05-differential.json"
#: Cases where gputui and Slurm 22.05 still differ, each with its reason in docs/slurm-fidelity.md.
KNOWN = {"single --gpus-per-task=1 -n 2"}


@pytest.fixture(scope="module", name="rows")
def rows_fixture() -> list[dict]:
    return replay(json.loads(FIXTURE.read_text()))


def test_the_fixture_holds_at_least_100_cases_with_sequences_up_to_6_steps(rows: list[dict]) -> None:
    lengths = [len(r["steps"]) for r in rows]
    assert len(rows) >= 100 and max(lengths) == 6 and sum(n > 1 for n in lengths) >= 50
    outcomes = {s["slurm"]["outcome"] for r in rows for s in r["steps"]}
    assert outcomes == {"start", "wait", "refuse"}


def test_gputui_agrees_with_slurm_on_at_least_95_percent_of_the_cases(rows: list[dict]) -> None:
    rate, text = report(rows)
    print("\n" + text)
    assert rate >= 0.95, text
    assert {r["name"] for r in rows if not r["same"]} <= KNOWN, text
