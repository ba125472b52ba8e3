"""The recording format: exact round trip, seeking, events, appending, and surviving crashes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from recording_helpers import T0, frames
from strategies import clusters

from gputui.core.errors import RecordingError
from gputui.core.model import Event
from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.sources.recording.fileformat import HEAD, MAGIC, TRAILER_SIZE
from gputui.sources.recording.reader import KEPT_SEGMENTS


def write(path: Path, snaps, interval: int = 7, close: bool = True, events=()) -> None:  # type: ignore[no-untyped-def]
    w = RecordingWriter(path, meta={"test": True}, keyframe_interval=interval)
    for s in snaps:
        w.append(s)
    for e in events:
        w.add_event(e)
    if close:
        w.close()
    else:
        w._f.close()  # simulate a crash: no index, no trailer


def test_every_frame_reads_back_equal(tmp_path: Path) -> None:
    snaps = frames(40)
    write(tmp_path / "r.gtrec", snaps)
    r = RecordingReader(tmp_path / "r.gtrec")
    assert r.index.clean and r.frame_count == 40 and not r.damaged
    assert [r.frame(i) for i in range(40)] == snaps
    assert [r.frame(i) for i in reversed(range(40))] == snaps[::-1]  # backwards re-decodes from keyframes
    assert (r.start_time, r.end_time) == (T0, T0 + 39)


def test_a_reader_keeps_two_segments_however_long_it_plays(tmp_path: Path) -> None:
    # a replay holds its reader for hours: the segment playing and the one before it stay read, no more
    snaps = frames(70)
    write(tmp_path / "r.gtrec", snaps)  # a keyframe every 7 frames: 10 segments
    r = RecordingReader(tmp_path / "r.gtrec")
    for i in range(70):
        assert r.frame(i) == snaps[i]
        assert len(r._segments) <= KEPT_SEGMENTS == 2
    assert sorted(r._segments) == [8, 9]
    assert r.frame(3) == snaps[3] and r.timestamp(65) == snaps[65].timestamp  # read again when wanted again


@given(st.lists(clusters, min_size=1, max_size=6), st.integers(1, 4))
def test_any_sequence_of_snapshots_round_trips(tmp_path_factory, snaps, interval) -> None:  # type: ignore[no-untyped-def]
    snaps = [s.with_time(float(i)) for i, s in enumerate(snaps)]
    path = tmp_path_factory.mktemp("rec") / "r.gtrec"
    write(path, snaps, interval=interval)
    r = RecordingReader(path)
    assert [r.frame(i) for i in range(len(snaps))] == snaps


def test_locate_and_timestamps(tmp_path: Path) -> None:
    write(tmp_path / "r.gtrec", frames(30, step=2.0))
    r = RecordingReader(tmp_path / "r.gtrec")
    assert r.locate(T0 - 100) == 0
    assert r.locate(T0 + 9.9) == 4
    assert r.locate(T0 + 10) == 5
    assert r.locate(T0 + 1e6) == 29
    assert r.timestamp(17) == T0 + 34


def test_file_is_private_and_starts_with_a_versioned_header(tmp_path: Path) -> None:
    write(tmp_path / "r.gtrec", frames(3))
    data = (tmp_path / "r.gtrec").read_bytes()
    assert data.startswith(MAGIC + b'{"format":"gputui-recording","schema":1')
    assert stat.S_IMODE(os.stat(tmp_path / "r.gtrec").st_mode) == 0o600


def test_events_are_kept_in_time_order(tmp_path: Path) -> None:
    evs = [
        Event(T0 + 5, "job_started", "job 7 started", node="node01", gpus=(0, 1), job_id="7"),
        Event(T0 + 2, "mps_started", "MPS daemon up", node="node01", gpus=(1,)),
    ]
    write(tmp_path / "r.gtrec", frames(10), events=evs)
    r = RecordingReader(tmp_path / "r.gtrec")
    assert r.events == sorted(evs, key=lambda e: e.timestamp)


@pytest.mark.parametrize("cut", [1, 5, HEAD.size, HEAD.size + 3])
def test_a_crash_mid_frame_loses_only_that_frame(tmp_path: Path, cut: int) -> None:
    snaps = frames(25)
    path = tmp_path / "r.gtrec"
    write(path, snaps[:24], close=False)
    good = path.stat().st_size
    w = RecordingWriter(path, keyframe_interval=7)  # append the 25th frame, then tear it
    w.append(snaps[24])
    w._f.close()
    with open(path, "r+b") as f:
        f.truncate(good + cut)
    r = RecordingReader(path)
    assert not r.index.clean and r.damaged
    assert r.frame_count == 24
    assert [r.frame(i) for i in range(24)] == snaps[:24]


def test_a_damaged_record_is_skipped_to_the_next_keyframe(tmp_path: Path) -> None:
    snaps = frames(20)
    path = tmp_path / "r.gtrec"
    write(path, snaps, close=False)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # flip a byte in the middle
    path.write_bytes(bytes(data))
    r = RecordingReader(path)
    assert 0 < r.frame_count < 20 and len(r.damage) == 1 and r.damaged
    got = [r.frame(i) for i in range(r.frame_count)]
    lost = r.damage[0].frame
    assert got == snaps[:lost] + snaps[20 - (r.frame_count - lost) :]  # before the damage, and from a keyframe on
    assert f"frame {lost}" in r.warnings[0]


def test_appending_after_a_clean_close_and_after_a_crash(tmp_path: Path) -> None:
    snaps = frames(30)
    path = tmp_path / "r.gtrec"
    write(path, snaps[:10])  # clean
    write(path, snaps[10:20], close=False)  # crashed
    with open(path, "ab") as f:
        f.write(b"K\x99")  # and a torn record on top
    write(path, snaps[20:], events=[Event(T0 + 25, "note", "resumed")])
    r = RecordingReader(path)
    assert r.index.clean and not r.damaged
    assert [r.frame(i) for i in range(r.frame_count)] == snaps
    assert [e.message for e in r.events] == ["resumed"]


def test_scan_and_trailer_give_the_same_index(tmp_path: Path) -> None:
    snaps = frames(50)
    write(tmp_path / "a.gtrec", snaps, interval=9)
    write(tmp_path / "b.gtrec", snaps, interval=9, close=False)
    a, b = RecordingReader(tmp_path / "a.gtrec"), RecordingReader(tmp_path / "b.gtrec")
    assert a.index.clean and not b.index.clean
    assert a.index.keyframes == b.index.keyframes and a.frame_count == b.frame_count
    assert a.frame(33) == b.frame(33) == snaps[33]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a gputui recording"),
        (b"hello world\n", "not a gputui recording"),
        (MAGIC + b"{not json\n", "header is not valid JSON"),
        (MAGIC + b'{"format":"other"}\n', "does not name the format"),
        (MAGIC + b'{"format":"gputui-recording","schema":99}\n', "schema 99 is not supported"),
        (MAGIC + b'{"format":"gputui-recording","schema":1}\n', "no complete frame"),
        (MAGIC + b'{"format":"gputui-recording"', "header is truncated"),
    ],
)
def test_bad_files_give_one_clear_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.gtrec"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=message) as e:
        RecordingReader(path)
    assert "\n" not in str(e.value) and str(path) in str(e.value)


def test_a_bad_trailer_falls_back_to_scanning(tmp_path: Path) -> None:
    snaps = frames(12)
    path = tmp_path / "r.gtrec"
    write(path, snaps)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x55  # damage the trailer's offset
    path.write_bytes(bytes(data))
    r = RecordingReader(path)
    assert not r.index.clean and r.frame_count == 12 and r.frame(11) == snaps[11]
    assert HEAD.size + 8 == TRAILER_SIZE
