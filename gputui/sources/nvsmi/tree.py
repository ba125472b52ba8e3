"""A small generic tree that both `nvidia-smi -q -x` XML and `nvidia-smi -q` text are read into.

Text labels are normalised to XML-like tag names ('FB Memory Usage' -> 'fb_memory_usage'), so one
mapper with a few alternative names per field serves both formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

_NON_WORD = re.compile(r"[^0-9a-z]+")


def tag_for_label(label: str) -> str:
    """The tag a `nvidia-smi -q` label maps to: lower case, runs of other characters as '_'."""
    return _NON_WORD.sub("_", label.lower()).strip("_")


class Node:
    """One element: a tag, attributes, its text (stripped, or None) and child elements in order."""

    __slots__ = ("tag", "attrs", "text", "children", "_index")

    def __init__(
        self,
        tag: str,
        attrs: dict[str, str] | None = None,
        text: str | None = None,
        children: list[Node] | None = None,
    ) -> None:
        self.tag = tag
        self.attrs = attrs or {}
        self.text = text
        self.children = children if children is not None else []
        self._index: dict[str, Node] | None = None  # first child per tag, built on the first lookup

    def __repr__(self) -> str:
        return f"Node({self.tag!r}, text={self.text!r}, children={len(self.children)})"

    def child(self, tag: str) -> Node | None:
        """The first child with this tag (children must not change after the first lookup)."""
        if self._index is None:
            self._index = {}
            for c in self.children:
                self._index.setdefault(c.tag, c)
        return self._index.get(tag)

    def all(self, tag: str) -> Iterator[Node]:
        return (c for c in self.children if c.tag == tag)

    def find(self, path: str) -> Node | None:
        """The first node at a '/'-separated path of tags below this one."""
        node: Node | None = self
        for part in _steps(path):
            if node is None:
                return None
            node = node.child(part)
        return node

    def find_all(self, path: str) -> list[Node]:
        """Every node at a path whose last step may repeat ('mig_devices/mig_device')."""
        head, _, last = path.rpartition("/")
        parent = self.find(head) if head else self
        return list(parent.all(last)) if parent is not None else []

    def value(self, path: str) -> str | None:
        """The text at a path; '@name' reads an attribute of this node instead."""
        if path.startswith("@"):
            return self.attrs.get(path[1:])
        node = self.find(path)
        return node.text if node is not None else None


@cache
def _steps(path: str) -> tuple[str, ...]:
    return tuple(path.split("/"))
