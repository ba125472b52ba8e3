"""nvidia_gpu_exporter capture bundles: many nvidia-smi outputs in one file, split by '####' banners.

A section is a '####' line, '# PHASE :: what', '# $ command', another '####' line, then the output.
The `-L` listing names the MIG devices; each phase's `-q` output (idle, load) is a frame, and a phase
without one falls back to its query-gpu CSV.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gputui.core.errors import SourceError
from gputui.core.model import ClusterSnapshot
from gputui.sources.nvsmi.lines import TailWatch
from gputui.sources.nvsmi.mapping import node_from_tree
from gputui.sources.nvsmi.mig import ListedMig
from gputui.sources.nvsmi.query_csv import frames_from_csv
from gputui.sources.nvsmi.query_text import iter_text_documents

CAPTURE_MARK = "nvidia_gpu_exporter GPU capture"
_BAR = re.compile(r"^#{20,}\s*$")
TITLE = re.compile(r"^# (\S[^:]*?) :: (.+?)\s*$")
_COMMAND = re.compile(r"^# \$ (.*?)\s*$")
_LIST_GPU = re.compile(r"^GPU (\d+): .*\(UUID: (\S+)\)\s*$")
_LIST_MIG = re.compile(r"^\s+MIG (\S+)\s+Device\s+(\d+): \(UUID: (\S+)\)\s*$")
_COLLECTED = re.compile(r"^collected_at:\s*(\S+)")


@dataclass
class Section:
    phase: str
    what: str
    command: str = ""
    lines: list[str] = field(default_factory=list)
    closed: bool = False  # another section followed, so this one's output is complete

    @property
    def kind(self) -> str | None:
        """'list', 'query' or 'query-gpu' for the sections we read; None for the rest."""
        argv = self.command.split()
        if argv[:1] != ["nvidia-smi"]:
            return None
        if argv[1:] == ["-L"]:
            return "list"
        if argv[1:] == ["-q"]:
            return "query"
        if len(argv) > 1 and argv[1].startswith("--query-gpu=") and any("--format=csv" in a for a in argv):
            return "query-gpu"
        return None


def read_sections(lines: Iterable[str]) -> tuple[list[str], list[Section]]:
    """The header lines before the first section, and the sections (with output only where we read it)."""
    preamble: list[str] = []
    sections: list[Section] = []
    current: Section | None = None
    state = "body"  # 'bar' after a '####' line, 'title' inside a section banner
    for raw in lines:
        line = raw.rstrip("\r\n")
        if _BAR.match(line):
            state = "body" if state == "title" else "bar"
            continue
        if state == "bar":
            title = TITLE.match(line)
            if title:
                if current is not None:
                    current.closed = True
                current = Section(phase=title.group(1), what=title.group(2))
                sections.append(current)
                state = "title"
                continue
            state = "body"
        if state == "title":
            cmd = _COMMAND.match(line)
            if cmd and current is not None:
                current.command = cmd.group(1)
            continue
        if current is None:
            if len(preamble) < 100:
                preamble.append(line)
        elif current.kind is not None:
            current.lines.append(raw)  # with its newline: a last line without one was cut
    return preamble, sections


def collected_at(preamble: list[str]) -> float | None:
    """The capture's 'collected_at: 2026-07-14T09:00:26Z' as epoch seconds."""
    for line in preamble:
        m = _COLLECTED.match(line)
        if m:
            try:
                t = datetime.fromisoformat(m.group(1))
            except ValueError:
                return None
            return (t if t.tzinfo else t.replace(tzinfo=UTC)).timestamp()
    return None


def mig_listing(section: Section | None) -> dict[int, dict[int, ListedMig]]:
    """GPU index -> MIG device index -> profile name and UUID, from `nvidia-smi -L` output."""
    listing: dict[int, dict[int, ListedMig]] = {}
    gpu: int | None = None
    for line in section.lines if section else ():
        g = _LIST_GPU.match(line)
        if g:
            gpu = int(g.group(1))
            continue
        m = _LIST_MIG.match(line)
        if m and gpu is not None:
            listing.setdefault(gpu, {})[int(m.group(2))] = ListedMig(profile=m.group(1), uuid=m.group(3))
    return listing


def frames_from_capture(
    lines: Iterable[str], *, label: str, node_name: str, name: str, mtime: float, warnings: list[str]
) -> list[ClusterSnapshot]:
    """One frame per phase (`-q` output, else the query-gpu CSV), in file order.

    Only the last section can be cut short (the file ends inside it); its torn frame is dropped with a warning.
    """
    tail = TailWatch(lines)
    preamble, sections = read_sections(tail)
    before = len(warnings)
    fallback = collected_at(preamble) or mtime
    listing = mig_listing(next((s for s in sections if s.kind == "list"), None))
    phases: list[str] = []
    for s in sections:
        if s.kind in ("query", "query-gpu") and s.phase not in phases:
            phases.append(s.phase)
    frames: list[ClusterSnapshot] = []
    for phase in phases:
        source = f"nvidia-smi capture {name} ({phase})"
        query = next((s for s in sections if s.phase == phase and s.kind == "query"), None)
        if query is not None:
            torn = None if query.closed else warnings
            for root in iter_text_documents(query.lines, f"{label} ({phase})", torn):
                t, node = node_from_tree(root, node_name, listing, fmt="text")
                if t is None:
                    warnings.append(f"{label}: `-q` output of phase {phase} has no timestamp; capture time used")
                frames.append(ClusterSnapshot(timestamp=t if t is not None else fallback, nodes=(node,), source=source))
            continue
        csv_section = next(s for s in sections if s.phase == phase and s.kind == "query-gpu")
        csv_before = len(warnings)
        try:
            read = frames_from_csv(
                csv_section.lines,
                label=f"{label} ({phase})",
                node_name=node_name,
                source=source,
                mtime=fallback,
                warnings=warnings,
                whole=csv_section.closed,
            )
        except SourceError:
            if csv_section.closed:
                raise
            del warnings[csv_before:]
            warnings.append(f"{label}: `--query-gpu` output of phase {phase} cut short; dropped (log cut short?)")
            continue
        frames.extend(read)
    if len(warnings) == before and (problem := _cut_short(preamble, sections, tail.cut)):
        warnings.append(f"{label}: capture cut short: {problem}; the section it ends in is not read")
    return frames


def _cut_short(preamble: list[str], sections: list[Section], in_line: bool) -> str | None:
    """Why a capture looks cut short, or None: the collector writes the same sections for the idle and the
    load state (when its header names a load), and ends every line."""
    if in_line:
        return "it ends inside a line"
    load = next((ln.partition(":")[2].strip() for ln in preamble if ln.startswith("load:")), "none")
    idle = sum(s.phase == "idle" for s in sections)
    loaded = sum(s.phase == "load" for s in sections)
    if load.lower() not in ("", "none") and loaded < idle:
        return f"its load state has {loaded} of the {idle} sections of its idle state"
    return None
