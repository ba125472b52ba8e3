"""Focus handling shared by the bars that open a text box over the view (the '/' filter, the replay's seek)."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input


class FocusLending(Widget):
    """A bar that takes the focus into its input while the user types, and gives it back when done."""

    _return_focus: Widget | None = None

    def lend_focus_to(self, box: Input) -> None:
        """Move the focus into ``box`` at once, remembering where it was."""
        if not box.has_focus:
            self._return_focus = self.screen.focused
        # At once, not via Widget.focus (a callback queued after the keys already typed): the characters
        # typed right after the key that opened the box must land in it, not in the table.
        self.screen.set_focus(box)

    def give_back_focus(self) -> None:
        """Return the focus to the widget that had it (or the next one, if that one is gone or hidden)."""
        back, self._return_focus = self._return_focus, None
        if back is not None and back.is_attached and back.display:
            back.focus()
        else:
            self.screen.focus_next()
