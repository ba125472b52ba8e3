"""The real dashboard (create_app) on the bundled demo recording, paused at its first frame, for UI tests that step
it with keys and look at what it draws."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from gputui.resources import demo_recording
from gputui.sources.recording import RecordingReader
from gputui.sources.replay import ReplaySource
from gputui.ui import GputuiApp, create_app


@asynccontextmanager
async def demo_dashboard(tmp_path: Path, size: tuple[int, int]) -> AsyncIterator[tuple[GputuiApp, Any, ReplaySource]]:
    """The dashboard on the demo (no user themes), its pilot once the first poll is drawn, and the replay."""
    source = ReplaySource(RecordingReader(demo_recording()), "demo")
    app = create_app(source, poll_interval=3600, themes_path=tmp_path)
    try:
        async with app.run_test(size=size) as pilot:
            await app.wait_for_polls()
            yield app, pilot, source
    finally:
        source.close()


async def press_each(app: GputuiApp, pilot: Any, *keys: str) -> None:
    """Press ``keys`` one at a time, each followed by the work it starts and the messages that work posts."""
    for key in keys:
        await pilot.press(key)
        await app.workers.wait_for_complete()
        await pilot.pause()
