"""Node resources and features in recordings: keyframes and deltas carry them, and a recording written before
they existed (schema 1 as of commit 4937319, fixtures/recording/) still loads, with resources N/A."""

from __future__ import annotations

import zlib
from dataclasses import replace
from pathlib import Path

from conftest import FIXTURES

from gputui.core.model import ClusterSnapshot, GpuSnapshot, NodeResources, NodeSnapshot
from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.sources.recording.fileformat import DELTA, HEAD, MAGIC, SCHEMA_VERSION

OLD = FIXTURES / "recording" / "schema1-before-node-resources.gtrec"
T0 = 1_800_000_000.0


def sequence() -> list[ClusterSnapshot]:
    gpu = GpuSnapshot(0, uuid="GPU-0", name="NVIDIA H100 80GB HBM3", memory_total_mib=81559, memory_used_mib=0)
    bare = NodeSnapshot("node01", (gpu,), "550.90.07", "12.4")
    res = NodeResources(cpus=112, memory_mib=2_097_152, cpus_alloc=8, memory_alloc_mib=65536, memory_used_mib=9000)
    nodes = [
        bare,  # not known yet
        replace(bare, resources=res, features=("h100", "ib")),
        replace(bare, resources=replace(res, memory_used_mib=9100), features=("h100", "ib")),
        replace(bare, resources=replace(res, cpus_alloc=None, memory_used_mib=None), features=("h100",)),
        replace(bare, resources=replace(res, memory_used_mib=12000), features=()),
        bare,  # gone again
    ]
    return [ClusterSnapshot(T0 + i, (n,), "test") for i, n in enumerate(nodes)]


def deltas(path: Path) -> list[int]:
    """Payload sizes of the delta records, in order."""
    data = path.read_bytes()
    pos, out = data.index(b"\n", len(MAGIC)) + 1, []
    while pos + HEAD.size <= len(data):
        kind, length, _ts, _crc = HEAD.unpack_from(data, pos)
        if kind == DELTA:
            out.append(length)
        pos += HEAD.size + length
    return out


def test_resources_and_features_round_trip_through_keyframes_and_deltas(tmp_path):
    snaps = sequence()
    for interval in (1, 100):  # every frame a keyframe; one keyframe, then deltas
        path = tmp_path / f"r{interval}.gtrec"
        with RecordingWriter(path, keyframe_interval=interval) as w:
            for s in snaps:
                w.append(s)
        r = RecordingReader(path)
        assert [r.frame(i) for i in range(len(snaps))] == snaps
        assert [r.frame(i) for i in reversed(range(len(snaps)))] == snaps[::-1]
        r.close()
    sizes = deltas(tmp_path / "r100.gtrec")
    assert len(sizes) == len(snaps) - 1 and sizes[1] < 40  # memory in use moving costs a few bytes


def test_a_recording_from_before_node_resources_still_loads():
    r = RecordingReader(OLD)
    try:
        assert r.meta["schema"] == SCHEMA_VERSION == 1  # optional fields with defaults: no schema bump needed
        assert r.frame_count == 5 and len(r.events) == 1
        frames = [r.frame(i) for i in range(r.frame_count)]
    finally:
        r.close()
    # the file really is old: its keyframe has no such keys
    data = OLD.read_bytes()
    start = data.index(b"\n", len(MAGIC)) + 1 + HEAD.size
    first = zlib.decompress(data[start : start + HEAD.unpack_from(data, start - HEAD.size)[1]])
    assert b"resources" not in first and b"features" not in first
    for snap in frames:
        (node,) = snap.nodes
        assert node.name == "oldnode" and node.resources is None and node.features == ()
    assert [f.nodes[0].gpus[0].memory_used_mib for f in frames] == [1000, 1100, 1200, 1300, 1400]
    assert [f.nodes[0].state for f in frames] == [None, "MIXED", None, "MIXED", None]
