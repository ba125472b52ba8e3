"""The real dashboard on a damaged recording: stepping or seeking onto a frame it cannot decode shows a notice
naming the frame and goes on past it (or stays); the app never exits."""

from __future__ import annotations

from pathlib import Path

from recording_helpers import frames

from gputui.cli.source_factory import open_source
from gputui.sources.recording import RecordingWriter
from gputui.sources.recording.fileformat import HEAD, read_header
from gputui.ui import create_app


def damaged_recording(path: Path) -> Path:
    w = RecordingWriter(path, keyframe_interval=7)
    for s in frames(30):
        w.append(s)
    w.close()
    data = bytearray(path.read_bytes())
    _, pos = read_header(bytes(data), "x")
    for _ in range(3):  # to frame 3's record
        _k, length, _t, _c = HEAD.unpack_from(data, pos)
        pos += HEAD.size + length
    data[pos + HEAD.size + 2] ^= 0x40
    path.write_bytes(bytes(data))
    return path


async def test_stepping_over_a_damaged_frame_keeps_the_dashboard_up(tmp_path: Path) -> None:
    opened = open_source(str(damaged_recording(tmp_path / "d.gtrec")))
    replay = opened.source
    app = create_app(replay, poll_interval=0.05, themes_path=tmp_path / "none")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(0.2)
        replay.seek(replay.store.timestamp(2))  # type: ignore[attr-defined]
        await pilot.press("right")
        await pilot.pause(0.1)
        assert app.is_running and replay.position == 7  # past frames 3-6 to the next keyframe
        notes = [n.message for n in app._notifications]
        assert any("frame 3 is damaged" in m for m in notes), notes
        await pilot.press("left")
        await pilot.pause(0.1)
        assert app.is_running and replay.position == 2
        with replay.store._f as _:  # type: ignore[attr-defined]
            pass  # the file closed under the replay: a frame not read yet cannot be read
        replay.store._segments.clear()  # type: ignore[attr-defined]
        replay.store._cursor = None  # type: ignore[attr-defined]
        await pilot.press("right")
        await pilot.pause(0.1)
        assert app.is_running and replay.position == 2  # stayed, and said why
        assert any("stayed on frame 2" in n.message for n in app._notifications)
    opened.source.close()
