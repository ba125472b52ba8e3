"""The snapshot model: JSON round trip, type checking on load, N/A kept as N/A, a pure core."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from strategies import clusters

from gputui.core.errors import SnapshotFormatError
from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeSnapshot
from gputui.core.serialize import from_data, snapshot_from_json, snapshot_to_json, to_data


@given(clusters)
def test_json_round_trip_gives_an_equal_snapshot(snap: ClusterSnapshot) -> None:
    assert snapshot_from_json(snapshot_to_json(snap)) == snap


def test_missing_values_stay_none_not_zero() -> None:
    snap = ClusterSnapshot(1.0, (NodeSnapshot("n", (GpuSnapshot(index=0),)),))
    data = json.loads(snapshot_to_json(snap))
    gpu = data["nodes"][0]["gpus"][0]
    assert gpu["utilization_gpu"] is None and gpu["memory_used_mib"] is None and gpu["mps"] is None
    assert snapshot_from_json(json.dumps(data)).nodes[0].gpus[0].memory_free_mib is None


def test_snapshots_are_frozen() -> None:
    g = GpuSnapshot(index=0)
    with pytest.raises(AttributeError):
        g.index = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("timestamp"), "missing field 'timestamp'"),
        (lambda d: d["nodes"][0]["gpus"][0].update(index="0"), "$.nodes[0].gpus[0].index: expected an integer"),
        (lambda d: d["nodes"][0]["gpus"][0].update(utilization_gpu=True), "expected an integer"),
        (lambda d: d["nodes"][0].update(gpus={}), "expected a list"),
        (lambda d: d["nodes"][0].update(name=None), "$.nodes[0].name: expected a string, got None"),
        (lambda d: d["nodes"][0]["gpus"][0].update(lost=None), "lost: expected true or false"),
    ],
)
def test_bad_json_names_the_bad_value(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    data = to_data(ClusterSnapshot(1.0, (NodeSnapshot("n", (GpuSnapshot(index=0),)),)))
    mutate(data)
    with pytest.raises(SnapshotFormatError, match=message.replace("$", r"\$").replace("[", r"\[").replace("]", r"\]")):
        from_data(ClusterSnapshot, data)


def test_not_json_is_a_format_error() -> None:
    with pytest.raises(SnapshotFormatError, match="not JSON"):
        snapshot_from_json("{nope")


def test_core_imports_no_ui_or_nvml() -> None:
    code = (
        "import sys, gputui.core, gputui.core.model, gputui.core.serialize, gputui.core.mig_profiles, "
        "gputui.core.timefmt, gputui.core.clock\n"
        "import pkgutil, importlib\n"
        "for m in pkgutil.walk_packages(gputui.core.__path__, 'gputui.core.'): importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'pynvml') "
        "or m.startswith(('gputui.ui', 'gputui.sources')))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
