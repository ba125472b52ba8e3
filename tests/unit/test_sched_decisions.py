"""The scheduler decides exactly as before: the benchmark's streams, run on small clusters under every policy,
hash to the digests in fixtures/scheduler/decision-digests.json (decisions and the reasons of waiting jobs).

A speed-up must leave these unchanged; a change meant to alter decisions rewrites the file
(``python tests/unit/test_sched_decisions.py --write``) and says why in its commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gputui.bench.scheduler import run_size

FILE = Path(__file__).resolve().parents[2] / "fixtures" / "scheduler" / "decision-digests.json"
RUNS = json.loads(FILE.read_text())["runs"]
#: The quick subset run here: every policy and stream at 40 nodes, the default policy at 200 as well.
QUICK = [k for k in RUNS if k.endswith("/40") or k.split("/")[1:] == ["best-fit", "200"]]


def _run(key: str) -> list:
    stream, policy, nodes = key.split("/")
    r = run_size(int(nodes), 600, 1, policy, stream=stream, digest=True)
    return [r["all_decisions"], r["digest"], r["reasons"]]


@pytest.mark.parametrize("key", QUICK)
def test_decisions_as_recorded(key: str) -> None:
    assert _run(key) == RUNS[key]


def test_a_changed_decision_changes_the_digest() -> None:
    # a different seed is a different stream: the digest must see it (it is not a constant)
    a = run_size(40, 200, 1, "best-fit", stream="old", digest=True)
    b = run_size(40, 200, 2, "best-fit", stream="old", digest=True)
    assert a["digest"] != b["digest"] and len(a["digest"]) == 16


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    data = json.loads(FILE.read_text())
    data["runs"] = {k: _run(k) for k in RUNS}
    FILE.write_text(json.dumps(data, indent=1) + "\n")
