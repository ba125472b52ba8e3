"""`nvidia-smi -q` text (indented 'Key : value' lines) read into the same tree as the XML form.

Each '==== NVSMI LOG ====' banner starts a document, so the output of `nvidia-smi -q -l N` is a
stream of documents just like the XML one. nvidia-smi ends every document with a blank line, so the
last one is complete when a blank line follows its last GPU section and it has as many GPU sections as
its 'Attached GPUs' says; else the log was cut while it was written, and that document is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from gputui.core.errors import SourceError
from gputui.sources.nvsmi.tree import Node, tag_for_label
from gputui.sources.nvsmi.xml_stream import MAX_DEPTH, MAX_ELEMENTS, ROOT_TAG

BANNER = re.compile(r"^=+\s*NVSMI LOG\s*=+$")
# 'Product Name      : NVIDIA H100' or 'Processes : None'; the colon must be followed by a blank or the
# end, which keeps 'GPU 00000000:00:09.0' out.
_KEY_VALUE = re.compile(r"^(\S.*?)\s*:(?:\s+(.*))?$")
_GPU_HEADER = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])$")


def iter_text_documents(lines: Iterable[str], label: str, warnings: list[str] | None = None) -> Iterator[Node]:
    """Yield one tree per `nvidia-smi -q` document found in ``lines``; a last document cut short is dropped
    with a warning in ``warnings`` (kept when ``warnings`` is None)."""
    root: Node | None = None
    stack: list[tuple[int, Node]] = []
    count = 0
    blank_after = False  # a blank line followed the last content line
    for raw in lines:
        line = raw.rstrip().expandtabs(4)
        stripped = line.lstrip(" ")
        if not stripped:  # a blank line, unless it is the file's last, cut inside its indentation
            blank_after = blank_after or raw.endswith(("\n", "\r")) or not raw
            continue
        blank_after = False
        if BANNER.match(stripped):
            if root is not None and root.children:
                yield root
            root, stack, count = _new_root()
            continue
        if root is None:
            root, stack, count = _new_root()
        indent = len(line) - len(stripped)
        node = _node_for(stripped)
        while stack[-1][0] >= indent:
            stack.pop()
        stack[-1][1].children.append(node)
        stack.append((indent, node))
        count += 1
        if len(stack) > MAX_DEPTH or count > MAX_ELEMENTS:
            raise SourceError(f"{label}: `nvidia-smi -q` text nested or sized beyond any real log")
    if root is None or not root.children:
        return
    problem = None if warnings is None else torn(root, blank_after)
    if problem is None:
        yield root
    else:
        assert warnings is not None
        warnings.append(f"{label}: last `nvidia-smi -q` document dropped: {problem} (log cut short?)")


def torn(root: Node, blank_after: bool) -> str | None:
    """Why the last document of a stream is incomplete, or None when it is whole."""
    gpus = list(root.all("gpu"))
    attached = root.value("attached_gpus")
    if attached is not None and attached.strip().isdigit() and len(gpus) < int(attached):
        return f"{len(gpus)} of its {int(attached)} GPU sections"
    if not gpus:
        return "no GPU section"
    if not blank_after:
        return "it ends inside its last GPU section"
    return None


def _new_root() -> tuple[Node, list[tuple[int, Node]], int]:
    root = Node(ROOT_TAG)
    return root, [(-1, root)], 0


def _node_for(stripped: str) -> Node:
    gpu = _GPU_HEADER.match(stripped)
    if gpu:
        return Node("gpu", {"id": gpu.group(1)})
    kv = _KEY_VALUE.match(stripped)
    if kv:
        value = (kv.group(2) or "").strip()
        return Node(tag_for_label(kv.group(1)), text=value or None)
    return Node(tag_for_label(stripped))
