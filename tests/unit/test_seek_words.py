"""`g` means one thing: its prompt, its error message and the README name the same forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from gputui.core.errors import TimeFormatError
from gputui.dashboard.seek_time import HELP, parse_seek


@pytest.mark.parametrize("text", ["xyz", "+5q", "25:00"])
def test_a_wrong_time_names_what_the_seek_box_takes(text: str) -> None:
    with pytest.raises(TimeFormatError) as e:
        parse_seek(text, current=100.0, start=0.0, end=600.0)
    assert str(e.value) == f"go to {text!r}: not a time; use {HELP}"


def test_offsets_count_from_the_frame_on_screen_as_the_readme_says() -> None:
    assert parse_seek("+90s", current=100.0, start=0.0, end=600.0) == 190.0
    assert parse_seek("-1m", current=100.0, start=0.0, end=600.0) == 40.0
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert "`+90s` / `-5m` from the\nframe on screen" in readme
