"""gputui's port of Go's math/rand against numbers printed by a Go 1.19 program (fixtures/simulate/)."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from gputui.core.simulate.gorand import GoRand

REF = json.loads((FIXTURES / "simulate" / "gorand_go119.json").read_text())
BOUNDS = [1, 2, 3, 7, 1000, 1213, 8152, 1 << 20, 2147483647]


@pytest.mark.parametrize("seed", sorted(REF, key=int))
def test_matches_go(seed: str) -> None:
    ref = REF[seed]
    r = GoRand(int(seed))
    assert [r.int63() for _ in range(700)] == ref["int63"]  # past the 607-word register: the feedback wraps
    assert [r.intn(n) for n in BOUNDS] == ref["intn"]
    assert r.perm(50) == ref["perm50"]
    items = list(range(100))
    r.shuffle_list(items)
    assert items == ref["shuffle100"]
    assert r.int63() == ref["after"]


def test_bad_bounds_are_refused() -> None:
    r = GoRand(1)
    for f in (r.intn, r.int63n, r.int31n):
        with pytest.raises(ValueError):
            f(0)
