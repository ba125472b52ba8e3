"""The MPS key of the shell: start or stop the highlighted GPU's control daemon after a confirmation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App

from gputui.core.model import GpuSnapshot, NodeSnapshot
from gputui.dashboard.mps import MpsController, MpsPlan
from gputui.dashboard.outcomes import Notice
from gputui.ui.dialogs.outcome_dialogs import ask, say


class MpsKeys:
    def __init__(
        self,
        app: App[Any],
        controller: MpsController,
        *,
        highlighted: Callable[[], tuple[NodeSnapshot, GpuSnapshot] | None],
        request_poll: Callable[[], object],
    ) -> None:
        self.app = app
        self.controller = controller
        self.highlighted = highlighted
        self.request_poll = request_poll

    async def toggle(self) -> None:
        """A worker: it waits for the confirmation; nvidia-cuda-mps-control then runs in a thread of its own worker."""
        plan = self.controller.plan(self.highlighted())
        if isinstance(plan, Notice):
            say(self.app, plan)
            return
        if await ask(self.app, plan.confirm):
            self.app.run_worker(self._run(plan), group="mps")

    async def _run(self, plan: MpsPlan) -> None:
        result = await asyncio.to_thread(plan.call)
        say(self.app, self.controller.done(plan.verb, result))
        self.request_poll()
