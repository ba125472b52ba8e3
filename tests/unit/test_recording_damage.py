"""Damaged recordings: every record's checksum verified (also in a cleanly closed file), damage named by frame and
skipped to the next keyframe, never decoded as a wrong value; writing onto a damaged file never cuts what it
did not decide to; a full disk is one line."""

from __future__ import annotations

import errno
import hashlib
from pathlib import Path

import pytest
from recording_helpers import frames

from gputui.bench.fuzz.fuzz_files import run_recording
from gputui.cli import main
from gputui.core.errors import RecordingError
from gputui.core.model import ClusterSnapshot
from gputui.recorder import Recorder
from gputui.sources.recording import RecordingReader, RecordingWriter
from gputui.sources.recording.fileformat import HEAD, KEYFRAME, read_header

SNAPS = frames(30)


def write(path: Path, close: bool = True, interval: int = 7) -> Path:
    w = RecordingWriter(path, keyframe_interval=interval)
    for s in SNAPS:
        w.append(s)
    if close:
        w.close()
    else:
        w._f.close()  # as a killed recorder leaves it: no index, no trailer
    return path


def records(path: Path) -> list[tuple[bytes, int, int]]:
    """(kind, offset, payload length) of every record."""
    data = path.read_bytes()
    _, pos = read_header(data, "x")
    out = []
    while pos + HEAD.size <= len(data):
        kind, length, _ts, _crc = HEAD.unpack_from(data, pos)
        out.append((kind, pos, length))
        pos += HEAD.size + length
    return out


def poke(path: Path, offset: int, xor: int = 0x5A) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= xor
    path.write_bytes(bytes(data))


def test_a_flipped_value_in_a_cleanly_closed_file_is_named_never_shown(tmp_path: Path) -> None:
    path = write(tmp_path / "r.gtrec")
    kind, offset, length = records(path)[3]  # frame 3: a delta
    assert kind == b"D"
    poke(path, offset + HEAD.size + length - 1)  # its last byte: a value
    r = RecordingReader(path)
    assert r.index.clean and r.frame_count == 30
    assert [r.frame(i) for i in range(3)] == SNAPS[:3]
    with pytest.raises(RecordingError, match="frame 3 is damaged .checksum mismatch at frame 3.: frames 3 to 6"):
        r.frame(3)
    assert [r.frame(i) for i in range(7, 30)] == SNAPS[7:]  # the next keyframe on: intact
    assert r.intact(2) and not r.intact(5) and r.nearest_intact(4, 1) == 7 and r.nearest_intact(5, -1) == 2
    assert len(r.warnings) == 1


@pytest.mark.parametrize("where", ["keyframe payload", "length", "kind"])
def test_damage_in_a_clean_file_is_a_recording_error(tmp_path: Path, where: str) -> None:
    path = write(tmp_path / "r.gtrec")
    kind, offset, _length = records(path)[7]  # frame 7: the second keyframe
    assert kind == KEYFRAME
    poke(path, {"keyframe payload": offset + HEAD.size + 5, "length": offset + 2, "kind": offset}[where])
    r = RecordingReader(path)
    for i in range(7, 14):
        with pytest.raises(RecordingError, match=f"frame {i} is damaged"):
            r.frame(i)
    assert r.frame(14) == SNAPS[14] and r.frame(6) == SNAPS[6]


def test_a_torn_file_skips_past_a_damaged_record_and_keeps_every_intact_frame(tmp_path: Path) -> None:
    path = write(tmp_path / "r.gtrec", close=False)
    _kind, offset, _length = records(path)[9]
    poke(path, offset + HEAD.size + 1)
    r = RecordingReader(path)
    assert r.frame_count == 9 + 16  # frames 9-13 are lost with the damage; 14-29 follow the next keyframe
    assert [r.frame(i) for i in range(r.frame_count)] == SNAPS[:9] + SNAPS[14:]
    assert len(r.damage) == 1 and "frame 9" in r.warnings[0]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_recording_onto_a_torn_damaged_file_keeps_every_intact_frame(tmp_path: Path) -> None:
    path = write(tmp_path / "r.gtrec", close=False)
    _kind, offset, _length = records(path)[9]
    poke(path, offset + HEAD.size + 1)
    intact = RecordingReader(path).frame_count
    rec = Recorder(path)
    rec.start()
    rec.append(ClusterSnapshot(SNAPS[-1].timestamp + 5, SNAPS[-1].nodes, "test"))
    rec.close()
    r = RecordingReader(path)
    assert r.frame_count == intact + 1 and r.frame(intact - 1) == SNAPS[-1]


def test_a_damaged_record_after_the_last_intact_one_is_refused_untouched(tmp_path: Path) -> None:
    path = write(tmp_path / "r.gtrec", close=False)
    _kind, offset, _length = records(path)[-1]
    poke(path, offset + HEAD.size + 1)  # the last record: whole, but its checksum fails
    before = _digest(path)
    with pytest.raises(RecordingError, match="left untouched"):
        RecordingWriter(path)
    assert _digest(path) == before
    code = main(["record", "demo", "-o", str(path), "-q"])
    assert code == 2 and _digest(path) == before


def test_a_torn_tail_alone_is_cut_and_appended_after(tmp_path: Path) -> None:
    path = write(tmp_path / "r.gtrec", close=False)
    data = path.read_bytes()
    path.write_bytes(data[:-3])  # the last record cut short, as by a kill
    w = RecordingWriter(path)
    assert w.frame_count == 29
    w.close()
    assert RecordingReader(path).frame_count == 29


def test_a_full_disk_is_one_line_and_the_file_stays_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    if Path("/dev/full").exists():
        assert main(["record", "demo", "-o", "/dev/full", "-q"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "disk full" in err, err
    real = RecordingWriter._write_all
    calls = {"n": 0}

    def write_all(self, data):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 40:
            self._f.write(data[: len(data) // 2])  # half a record reaches the disk, then it is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, data)

    monkeypatch.setattr(RecordingWriter, "_write_all", write_all)
    path = tmp_path / "full.gtrec"
    code = main(["record", "demo", "-o", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"gputui: {path}: cannot write: disk full; the ") and "stay readable" in last
    monkeypatch.setattr(RecordingWriter, "_write_all", real)
    r = RecordingReader(path)
    assert r.frame_count >= 30 and not r.damage  # the half record was cut off again


def test_flipped_zeroed_and_cut_copies_give_no_wrong_frame_and_no_traceback(tmp_path: Path) -> None:
    # The quick subset; `python -m gputui.bench fuzz_files` runs hundreds of copies of the demo recording.
    fixture = write(tmp_path / "small.gtrec")
    tally = run_recording(fixture, 45, seed=3, work=tmp_path, with_cli=True)
    assert tally.tracebacks == [] and tally.wrong == 0
    assert tally.frames_read > 0 and tally.frames_damaged > 0
