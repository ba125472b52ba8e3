"""The garbage collector paused for the dashboard's start-up (gputui/ui/collector.py)."""

from __future__ import annotations

import gc
import subprocess
import sys

from gputui.ui.collector import collector_paused, resume_collector


def test_paused_until_resumed_then_on_and_the_garbage_collected() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        before = gc.get_count()[0]
        resume_collector()
        assert gc.isenabled() and gc.get_count()[0] < before  # collected
        resume_collector()  # once only: nothing more to do
        assert gc.isenabled()
    assert gc.isenabled()


def test_the_block_ending_turns_it_on_again_without_a_resume() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    resume_collector()  # outside a pause: leaves the collector as it is
    gc.disable()
    try:
        resume_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_module_loads_before_textual() -> None:
    code = "import sys, gputui.ui.collector; print('textual' in sys.modules, 'gputui.ui.app' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
