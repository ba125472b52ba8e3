"""The config file's [overview] hide reaches the real dashboard: the overview leaves those columns out."""

from __future__ import annotations

from pathlib import Path

from test_ui_jobs_dashboard import INTERVAL, until

from gputui.cli.source_factory import open_source
from gputui.ui import create_app
from gputui.ui.widgets.overview import OverviewTable


async def test_hidden_overview_columns_are_left_out(tmp_path: Path) -> None:
    source = open_source("demo").source
    app = create_app(source, poll_interval=INTERVAL, themes_path=tmp_path / "none", hidden_columns=("power", "model"))
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            await until(pilot, lambda: app.feed.poll_count >= 1)
            table = app.screen.query_one(OverviewTable)
            keys = [c[0] for c in table.columns]
            assert "power" not in keys and "name" not in keys and {"node", "gpu", "util", "holder"} <= set(keys)
    finally:
        source.close()
