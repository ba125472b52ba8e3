"""Telling which kind of nvidia-smi log a file is from its first few KiB."""

from __future__ import annotations

import csv
import os
import re

from gputui.sources.nvsmi.capture import CAPTURE_MARK, TITLE
from gputui.sources.nvsmi.lines import MAX_LINE_CHARS, is_utf16
from gputui.sources.nvsmi.query_csv import looks_like_header
from gputui.sources.nvsmi.query_text import BANNER

# the first lines must fit: the longest real line is a query-gpu header (7,640 bytes with driver 610's
# every field, units included), and a UTF-16 file takes twice the bytes
SNIFF_BYTES = 2 * MAX_LINE_CHARS

_XML_ROOT = re.compile(r"<!DOCTYPE\s+nvidia_smi_log\b|<nvidia_smi_log\b")
# values only nvidia-smi CSV output has: a GPU UUID, a PCI bus id, its timestamp, a bracketed N/A
_CSV_VALUE = re.compile(
    r"\bGPU-[0-9a-fA-F]{8}-|\b[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]\b"
    r"|\b\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\b|\[N/A\]|\[Not Supported\]"
)


def read_head(path: str | os.PathLike[str]) -> str | None:
    """The first few KiB as text, or None for a binary file (NUL bytes, or bytes that are not UTF-8).

    A file with a UTF-16 BOM (PowerShell's `>`) is read as UTF-16."""
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    if is_utf16(head):
        text = head[: len(head) & ~1].decode("utf-16", errors="replace")
        return None if "\x00" in text else text
    if b"\x00" in head:
        return None
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:  # only a character cut at the end of the sample is forgiven
            return None
        return head[: e.start].decode("utf-8")


def sniff_text(head: str) -> str | None:
    """The kind of log that starts with ``head``: 'xml', 'query-text', 'csv', 'capture', or None."""
    body = head.lstrip("\ufeff \t\r\n")
    if not body:
        return None
    if body.startswith("<"):
        return "xml" if _XML_ROOT.search(body) else None
    lines = [ln for ln in body.splitlines() if ln.strip()]
    if CAPTURE_MARK in "\n".join(lines[:5]) or _is_capture(lines):
        return "capture"
    if any(BANNER.match(ln.strip()) for ln in lines[:5]) or _is_query_text(lines):
        return "query-text"
    if not head.endswith(("\n", "\r")):  # the sample ended inside this line
        lines = lines[:-1] if len(lines) > 1 else [lines[0].rpartition(",")[0]]
    return "csv" if _is_csv(lines) else None


def sniff_nvsmi(path: str | os.PathLike[str]) -> str | None:
    """The kind of nvidia-smi log at ``path`` ('xml', 'query-text', 'csv', 'capture'), or None if not one."""
    try:
        head = read_head(path)
    except OSError:
        return None
    return sniff_text(head) if head is not None else None


def _is_capture(lines: list[str]) -> bool:
    return any(
        set(lines[i].strip()) == {"#"} and TITLE.match(lines[i + 1]) and lines[i + 2].startswith("# $ nvidia-smi")
        for i in range(min(len(lines) - 2, 40))
    )


def _is_query_text(lines: list[str]) -> bool:
    keys = {ln.split(":", 1)[0].strip() for ln in lines[:10] if " : " in ln}
    return {"Driver Version", "Attached GPUs"} <= keys


def _is_csv(lines: list[str]) -> bool:
    rows = [r for r in csv.reader(lines, skipinitialspace=True) if r]
    if not rows:
        return False
    if looks_like_header(rows[0]):
        return True
    width = len(rows[0])
    return width >= 2 and all(len(r) == width for r in rows) and bool(_CSV_VALUE.search(lines[0]))
