"""The one action registry: it defines the key bindings, the command palette entries and the help screen.

Each entry says whether it changes something (``mutating``: hidden by --readonly) and whether it
only makes sense while replaying (``replay_only``), so every place that lists actions agrees.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gputui.dashboard.seek_time import HELP as SEEK_HELP


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One user action: a Textual action string, its keys and how it is described."""

    action: str  # "replay_step(1)"; run on the app
    title: str  # short, for the footer and the palette
    group: str  # heading in the help screen
    keys: tuple[str, ...] = ()  # Textual key names; empty: palette only
    help: str = ""  # one line for the help screen and the palette
    mutating: bool = False  # changes the cluster or the queue (submit, cancel, MPS start/stop)
    replay_only: bool = False
    footer: bool = True  # shown in the footer (the first key only)
    key_display: str | None = None
    # Opens a text box: bound with priority, so that keys typed right after it reach the box; off
    # while a text box has the focus (typing '/' or 'g' there is text).
    opens_input: bool = False
    # The key bar shows the actions in ``rank`` order (lower first) as far as they fit, then '? more'.
    rank: int = 100
    # The views where the action applies (empty: every view); the key bar of another view leaves it out.
    views: tuple[str, ...] = ()
    # The views whose key bar starts with this action (before the ranked ones): submit in the jobs view.
    leads: tuple[str, ...] = ()
    # Acts on a job queue: the key bar leaves it out where the dashboard has none (an SSH fleet, a queue that
    # could not open); its key still answers, with the reason.
    needs_queue: bool = False

    @property
    def name(self) -> str:
        """The action's method name without parameters: 'replay_step' for 'replay_step(1)'."""
        return self.action.partition("(")[0].rpartition(".")[2]


class ActionRegistry:
    """An ordered set of actions; answers which are available given readonly and replay."""

    def __init__(self, specs: Iterable[ActionSpec]) -> None:
        self.specs: tuple[ActionSpec, ...] = tuple(specs)
        self._by_name: dict[str, list[ActionSpec]] = {}
        for s in self.specs:
            self._by_name.setdefault(s.name, []).append(s)

    def __iter__(self) -> Iterator[ActionSpec]:
        return iter(self.specs)

    def extended(self, more: Iterable[ActionSpec]) -> ActionRegistry:
        return ActionRegistry((*self.specs, *more))

    def allowed(self, spec: ActionSpec, *, readonly: bool, replay: bool) -> bool:
        return not (spec.mutating and readonly) and not (spec.replay_only and not replay)

    def allows_name(self, name: str, *, readonly: bool, replay: bool) -> bool | None:
        """Whether the action method ``name`` may run; None when the registry does not know it."""
        specs = self._by_name.get(name)
        if not specs:
            return None
        return any(self.allowed(s, readonly=readonly, replay=replay) for s in specs)

    def available(self, *, readonly: bool, replay: bool) -> list[ActionSpec]:
        return [s for s in self.specs if self.allowed(s, readonly=readonly, replay=replay)]

    def groups(self, *, readonly: bool, replay: bool) -> dict[str, list[ActionSpec]]:
        out: dict[str, list[ActionSpec]] = {}
        for s in self.available(readonly=readonly, replay=replay):
            out.setdefault(s.group, []).append(s)
        return out


DEFAULT_ACTIONS = ActionRegistry(
    [
        ActionSpec(
            "help", "Help", "App", ("question_mark",), "Show every key and action", key_display="?", footer=False
        ),
        ActionSpec("quit", "Quit", "App", ("q",), "Leave gputui", rank=90),
        ActionSpec("command_palette", "Palette", "App", ("ctrl+p",), "Search actions by name", footer=False),
        ActionSpec("view('overview')", "Overview", "Views", ("1",), "Cluster overview: every GPU", footer=False),
        ActionSpec(
            "view('detail')",
            "Detail",
            "Views",
            ("2",),
            "GPU detail: MIG slots, MPS, processes (also enter on a GPU)",
            footer=False,
        ),
        ActionSpec("view('history')", "History", "Views", ("3",), "Graphs of the last minutes, per GPU", footer=False),
        ActionSpec("view('jobs')", "Jobs", "Views", ("4",), "The queue and running jobs", footer=False),
        ActionSpec(
            "view('idle')",
            "Idle",
            "Views",
            ("5",),
            "GPUs a job holds but does not use (5 % for 10 min)",
            footer=False,
        ),
        ActionSpec(
            "clear_or_back", "Back", "Views", ("escape",), "Clear the filter; else back to the overview", footer=False
        ),
        ActionSpec(
            "filter",
            "Filter",
            "Table",
            ("slash",),
            "Filter by node, GPU, model, user or job",
            key_display="/",
            opens_input=True,
            rank=20,
        ),
        ActionSpec("sort", "Sort", "Table", ("o",), "Sort by the next column (a click on a header sorts too)", rank=21),
        ActionSpec("sort_reverse", "Reverse", "Table", ("O",), "Reverse the sort order", footer=False),
        ActionSpec("gpu(1)", "Next GPU", "Table", ("n",), "Select the next GPU (in every view)", footer=False),
        ActionSpec("gpu(-1)", "Previous GPU", "Table", ("p",), "Select the previous GPU", footer=False),
        ActionSpec(
            "focus_next", "Next pane", "Table", ("tab",), "Move focus between the tables of a view", footer=False
        ),
        ActionSpec(
            "toggle_detail",
            "Detail pane",
            "View",
            ("d",),
            "Show or hide the detail pane of the overview",
            rank=50,
            views=("overview",),
            leads=("overview",),
        ),
        ActionSpec("cycle_theme", "Theme", "View", ("t",), "Switch to the next colour theme", rank=60),
        ActionSpec("set_theme('gputui-dark')", "Theme: dark", "View", help="Use the dark theme"),
        ActionSpec("set_theme('gputui-light')", "Theme: light", "View", help="Use the light theme"),
        ActionSpec(
            "set_theme('gputui-contrast')", "Theme: high contrast", "View", help="High contrast, colour-blind safe"
        ),
        ActionSpec(
            "replay_toggle",
            "Play/Pause",
            "Replay",
            ("space",),
            "Play or pause the recording",
            replay_only=True,
            key_display="space",
            rank=10,
        ),
        ActionSpec(
            "replay_step(-1)", "Back", "Replay", ("left",), "One frame back", replay_only=True, key_display="←", rank=11
        ),
        ActionSpec(
            "replay_step(1)",
            "Step",
            "Replay",
            ("right",),
            "One frame forward",
            replay_only=True,
            key_display="→",
            rank=12,
        ),
        ActionSpec(
            "replay_jump(-60)",
            "-1 min",
            "Replay",
            ("left_square_bracket", "shift+left"),
            "Jump one minute back",
            replay_only=True,
            key_display="[",
            rank=40,
        ),
        ActionSpec(
            "replay_jump(60)",
            "+1 min",
            "Replay",
            ("right_square_bracket", "shift+right"),
            "Jump one minute forward",
            replay_only=True,
            key_display="]",
            rank=41,
        ),
        ActionSpec(
            "replay_slower",
            "Slower",
            "Replay",
            ("minus",),
            "One speed step slower (down to 0.5x)",
            replay_only=True,
            key_display="-",
            rank=42,
        ),
        ActionSpec(
            "replay_faster",
            "Faster",
            "Replay",
            ("plus", "equals_sign"),
            "One speed step faster (up to 60x)",
            replay_only=True,
            key_display="+",
            rank=43,
        ),
        ActionSpec(
            "replay_seek",
            "Seek",
            "Replay",
            ("g",),
            f"Go to a typed time: {SEEK_HELP}",
            replay_only=True,
            opens_input=True,
            rank=13,
        ),
    ]
)
