"""The cyclic garbage collector paused for the dashboard's start-up, from the command line to the first frame.

Start-up allocates some 60,000 objects that live as long as the app and makes few cycles (about 3,000 objects of
garbage by the first frame); collecting while it runs scanned the growing heap over and over (about 130
collections, 12 of them of the older generations): a fifth of the CPU time to the first frame. Paused, the
garbage waits for one collection after the first frame is on the terminal. This module imports nothing else,
so that the pause can start before Textual is imported.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_paused = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off within the block, until ``resume_collector`` (the first frame) turns it on again."""
    global _paused
    was_enabled = gc.isenabled()
    gc.disable()
    _paused = True
    try:
        yield
    finally:
        _paused = False
        if was_enabled:
            gc.enable()


def resume_collector() -> None:
    """Collect start-up's garbage once and turn the collector on again, if ``collector_paused`` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.collect()
        gc.enable()
