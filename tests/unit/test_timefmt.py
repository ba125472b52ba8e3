from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gputui.core.errors import TimeFormatError
from gputui.core.timefmt import parse_duration, parse_time

START = datetime(2026, 11, 2, 23, 55, tzinfo=UTC).timestamp()
END = START + 3600


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("start", START),
        ("end", END),
        ("+90s", START + 90),
        ("+5m", START + 300),
        ("-1h", END - 3600),
        ("23:56", START + 60),
        ("00:10:30", START + 15 * 60 + 30),  # after midnight: next day
        ("2026-11-02T23:58:00Z", START + 180),
        ("2026-11-02 23:58:00", START + 180),
        (str(START + 7), START + 7),
    ],
)
def test_times(text: str, expected: float) -> None:
    assert parse_time(text, START, END) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["tomorrow", "25:00", "+5x", "", "12:61"])
def test_bad_times_are_one_clear_line(text: str) -> None:
    with pytest.raises(TimeFormatError):
        parse_time(text, START, END)


def test_durations() -> None:
    assert parse_duration("1h30m") == 5400 and parse_duration("90") == 90 and parse_duration("1.5h") == 5400
    with pytest.raises(TimeFormatError, match="not a duration"):
        parse_duration("soon")
