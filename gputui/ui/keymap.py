"""The action registry as this dashboard offers it (read-only or not, replay or live): the keys it binds,
the actions it allows now, the key bar's and the top bar's items, and the help screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding

from gputui.dashboard.actions import ActionRegistry, ActionSpec
from gputui.ui.screens.view_screen import VIEWS
from gputui.ui.widgets.bars import BarItem

if TYPE_CHECKING:
    from gputui.ui.screens.help_screen import HelpScreen


class KeyMap:
    """``key_display`` names a key as the terminal shows it (the app's ``get_key_display``)."""

    def __init__(
        self,
        registry: ActionRegistry,
        *,
        readonly: bool,
        replay: bool,
        key_display: Callable[[Binding], str],
        has_queue: Callable[[], bool] = lambda: True,
    ) -> None:
        self.registry = registry
        self.has_queue = has_queue
        self.readonly = readonly
        self.replay = replay
        self.key_display = key_display
        self.input_openers = {spec.name for spec in registry if spec.opens_input}

    def available(self) -> list[ActionSpec]:
        return self.registry.available(readonly=self.readonly, replay=self.replay)

    def allows(self, action: str) -> bool | None:
        return self.registry.allows_name(action, readonly=self.readonly, replay=self.replay)

    def key_items(self, view: str) -> list[BarItem]:
        """The key bar of ``view``: the footer actions available there now, most important first (the actions
        that lead this view's bar, then by rank). The bar shows as many as fit and ends with '? more'. Without a
        job queue (an SSH fleet, a queue that could not open) the queue's actions are left out."""
        queue = self.has_queue()
        specs = [
            (0 if view in spec.leads else 1, spec.rank, i, spec)
            for i, spec in enumerate(self.available())
            if spec.footer and spec.keys and (not spec.views or view in spec.views) and (queue or not spec.needs_queue)
        ]
        return [
            BarItem(spec.key_display or self.key_display(Binding(spec.keys[0], "")), spec.title, spec.action)
            for *_, spec in sorted(specs, key=lambda t: t[:3])
        ]

    @staticmethod
    def view_items(current: str) -> list[BarItem]:
        """The top bar's view tabs, the one shown marked."""
        return [BarItem(key, title, f"view('{name}')", name == current) for name, (key, title) in VIEWS.items()]

    def help_screen(self) -> HelpScreen:
        from gputui.ui.screens.help_screen import HelpScreen  # loads when help is first asked for

        display = {k: self.key_display(Binding(k, "")) for s in self.available() for k in s.keys}
        groups = self.registry.groups(readonly=self.readonly, replay=self.replay)
        note = "Read-only: actions that change something are hidden." if self.readonly else ""
        return HelpScreen(groups, display, note)
