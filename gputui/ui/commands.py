"""Command palette entries for every action of the registry that the user may run now."""

from __future__ import annotations

from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from gputui.dashboard.actions import ActionSpec


@runtime_checkable
class HasActions(Protocol):
    def available_actions(self) -> list[ActionSpec]: ...


_NOT_IN_PALETTE = {"command_palette", "focus_next"}  # meaningless from inside the palette


class ActionCommands(Provider):
    """Lists the registry's available actions (readonly and replay filters applied)."""

    def _entries(self) -> list[tuple[str, str, str]]:
        app = self.app
        if not isinstance(app, HasActions):
            return []
        return [
            (f"{s.group}: {s.title}", s.action, s.help)
            for s in app.available_actions()
            if s.name not in _NOT_IN_PALETTE
        ]

    async def discover(self) -> Hits:
        app = self.app
        for title, action, help_text in self._entries():
            yield DiscoveryHit(title, partial(app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app = self.app
        for title, action, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(app.run_action, action), help=help_text)
