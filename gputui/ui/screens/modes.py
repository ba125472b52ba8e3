"""The views as Textual modes, each built on first use for the shell that shows it (its module loads then)."""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import Screen

from gputui.ui.screens.view_screen import Shell


def _overview(shell: Shell) -> Screen[None]:
    from gputui.ui.screens.overview_screen import OverviewScreen

    return OverviewScreen(shell)


def _detail(shell: Shell) -> Screen[None]:
    from gputui.ui.screens.detail_screen import DetailScreen

    return DetailScreen(shell)


def _history(shell: Shell) -> Screen[None]:
    from gputui.ui.screens.history_screen import HistoryScreen

    return HistoryScreen(shell)


def _jobs(shell: Shell) -> Screen[None]:
    from gputui.ui.screens.jobs_screen import JobsScreen

    return JobsScreen(shell)


def _idle(shell: Shell) -> Screen[None]:
    from gputui.ui.screens.idle_screen import IdleScreen

    return IdleScreen(shell)


#: view name -> the factory of its screen, the overview first
VIEW_SCREENS: dict[str, Callable[[Shell], Screen[None]]] = {
    "overview": _overview,
    "detail": _detail,
    "history": _history,
    "jobs": _jobs,
    "idle": _idle,
}
