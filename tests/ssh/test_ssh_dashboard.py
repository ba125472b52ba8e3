"""The real dashboard on `ssh:` aliases of a real sshd: every GPU of eight hosts updating at 1 Hz, and one host whose
sshd is killed becoming a row that says so while the others go on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from ssh_lab import SshLab
from test_ui_app import row_text

from gputui.cli.source_factory import open_source
from gputui.ui import GputuiApp, create_app
from gputui.ui.widgets.overview import OverviewTable

HOSTS = [f"gpu{i:02d}" for i in range(1, 9)]


async def _until(app: GputuiApp, check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def test_eight_hosts_update_and_a_killed_one_is_a_row(ssh_lab_env: SshLab) -> None:
    lab = ssh_lab_env
    own = lab.start_server()
    for h in HOSTS:
        lab.add_host(h, 2, server=own if h == "gpu05" else None)
    opened = open_source("ssh:gpu[01-08]", interval=1.0)
    app = create_app(opened.source, poll_interval=1.0)
    try:
        async with app.run_test(size=(160, 50)):
            table = app.query_one(OverviewTable)
            keys = [f"{h}/{i}" for h in HOSTS for i in range(2)]

            def all_live() -> bool:
                return table.row_order == keys and all(row_text(app, k)[3].strip() not in ("N/A", "") for k in keys)

            await _until(app, all_live, "every GPU of the eight hosts with a value")
            # No job queue on an SSH fleet: the key bar does not offer submitting or cancelling.
            assert not {"submit_job", "cancel_job"} & {i.action for i in app.keymap.key_items("overview")}
            before = {k: row_text(app, k)[4] for k in keys}  # memory cells change every second
            await _until(app, lambda: all(row_text(app, k)[4] != before[k] for k in keys), "every GPU updating", 10)

            lab.kill(own)
            await _until(app, lambda: "unreachable since" in row_text(app, "gpu05/0")[-1], "the killed host's row")
            assert row_text(app, "gpu05/0")[3] == "N/A" and "unreachable since" in row_text(app, "gpu05/1")[-1]
            others = [k for k in keys if not k.startswith("gpu05/")]
            before = {k: row_text(app, k)[4] for k in others}
            await _until(app, lambda: all(row_text(app, k)[4] != before[k] for k in others), "the others going on", 10)
            assert not any("since" in row_text(app, k)[-1] for k in others)
    finally:
        opened.source.close()
