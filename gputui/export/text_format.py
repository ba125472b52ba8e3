"""Metric families as pre-rendered series, and their two renderings: the Prometheus text format (0.0.4) a scrape
gets, and OpenMetrics sample lines with timestamps for a backfill.

prometheus_client's generic encoder validates and escapes every label of every sample again: about 60 ms for a
scrape of 64 GPUs, where a GPU's eight-label set is the same in every family. Here each label set is rendered once
per frame (escaped as the text format says: backslash, double quote, newline), which keeps a scrape within a few
milliseconds; the tests parse both renderings back with prometheus_client's parsers and compare them with its
encoder's output, and a real Prometheus and promtool read them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def escape_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def part(name: str, value: str) -> str:
    """One ``name="value"`` pair; ``name`` is one of gputui's own, always a valid label name."""
    return f'{name}="{escape_value(value)}"'


def braces(parts: Iterable[str]) -> str:
    text = ",".join(parts)
    return "{" + text + "}" if text else ""


@dataclass(slots=True)
class Family:
    """One gauge family: its name, help text and series, each kept as ``{labels} value`` text.

    Values are ints or finite floats (never bools): Python writes them as the format wants (``42``, ``41.5``).
    """

    name: str
    doc: str
    series: list[str] = field(default_factory=list)

    def add(self, labels: str, value: float | int) -> None:
        self.series.append(f"{labels} {value}")

    def header(self) -> str:
        doc = self.doc.replace("\\", "\\\\").replace("\n", "\\n")
        return f"# HELP {self.name} {doc}\n# TYPE {self.name} gauge\n"


def render_text(families: Iterable[Family]) -> bytes:
    """The Prometheus text format of ``families`` (those without series are left out, as prometheus_client does
    not: an empty family says nothing)."""
    out: list[str] = []
    for fam in families:
        if not fam.series:
            continue
        out.append(fam.header())
        name = fam.name
        out.extend(f"{name}{s}\n" for s in fam.series)
    return "".join(out).encode()


def openmetrics_lines(fam: Family, timestamp: float) -> str:
    """``fam``'s series as OpenMetrics sample lines stamped with ``timestamp`` (seconds)."""
    ts = repr(float(timestamp))
    name = fam.name
    return "".join(f"{name}{s} {ts}\n" for s in fam.series)
