"""``create_app``: the one factory of the dashboard, shared by the CLI and the tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from gputui.core.errors import GputuiError
from gputui.sources.base import Source
from gputui.ui.app import GputuiApp
from gputui.ui.themes import THEMES

if TYPE_CHECKING:
    from gputui.jobs.backend import JobBackend


def create_app(
    source: Source,
    *,
    readonly: bool = False,
    theme: str | None = None,
    notice: str | None = None,
    poll_interval: float = 1.0,
    themes_path: os.PathLike[str] | str | None = None,
    jobs_service: JobBackend | None = None,
    jobs_note: str | None = None,
    record: str | None = None,
    jobs_opener: Callable[[], JobBackend] | None = None,
    hidden_columns: tuple[str, ...] = (),
    idle_radar: tuple[int | None, float | None] = (None, None),
) -> GputuiApp:
    """Build the dashboard for ``source``; raises GputuiError (e.g. an unknown theme) before anything starts.

    User themes are read from ``themes_path`` (default: $XDG_CONFIG_HOME/gputui/themes); a broken
    file is reported when the app starts and skipped. ``jobs_opener`` opens
    the job service after the first frame (instead of ``jobs_service``, open before); call the app's
    ``close_jobs()`` after it has run. ``hidden_columns``: overview columns the user left out (config file);
    ``idle_radar``: the idle radar's threshold (per cent) and window (seconds), None for the defaults ([idle]).
    """
    from pathlib import Path

    from gputui.ui.user_themes import load_user_themes

    _open_at_queue_clock(source, jobs_service)
    folder = None if themes_path is None else Path(themes_path)
    themes, problems = load_user_themes(folder, taken=THEMES)
    try:
        return GputuiApp(
            source,
            readonly=readonly,
            theme=theme,
            notice=notice,
            poll_interval=poll_interval,
            user_themes=themes,
            theme_problems=problems,
            jobs_service=jobs_service,
            jobs_note=jobs_note,
            record=record,
            jobs_opener=jobs_opener,
            hidden_columns=hidden_columns,
            idle_radar=idle_radar,
        )
    except GputuiError as e:
        if problems:
            raise GputuiError(f"{e} ({len(problems)} theme file(s) skipped: {problems[0]})") from None
        raise


def _open_at_queue_clock(source: Source, service: JobBackend | None) -> None:
    """A replay whose queue has a clock opens there, so that no job is judged against an older frame."""
    if service is None:
        return  # the service opens after the first frame, or never: nothing of it loads before
    from gputui.jobs.service import JobService
    from gputui.sources.replay import ReplaySource

    if isinstance(source, ReplaySource) and isinstance(service, JobService) and service.clock.simulated:
        t = service.clock.resume_at(source.start_time)
        if source.current().timestamp != t:
            source.seek(t)
