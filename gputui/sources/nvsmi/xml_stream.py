"""Safe, streaming reading of `nvidia-smi -q -x` XML: one document or the back-to-back stream of `-l N`.

The files come from other machines, so nothing is expanded or fetched: a document that declares
entities is refused, external DTDs are never loaded, and depth, element count and document size are
capped. The file is read in chunks and each document becomes a tree as soon as it is complete.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from xml.parsers import expat

from gputui.core.errors import SourceError
from gputui.sources.nvsmi.lines import open_bytes
from gputui.sources.nvsmi.tree import Node

CHUNK_BYTES = 1 << 20
MAX_DEPTH = 64  # nvidia-smi nests about 7 deep
MAX_ELEMENTS = 1_000_000  # per document; a real one has a few thousand per GPU
MAX_DOCUMENT_BYTES = 64 << 20  # bounds what expat may buffer for one document
MAX_TEXT_CHARS = 1 << 16  # per element; long process command lines are a few KiB

ROOT_TAG = "nvidia_smi_log"

# Large subtrees no field is read from; not building them makes long logs load faster.
SKIPPED_TAGS = frozenset(
    {
        "supported_clocks",
        "clocks_event_reasons",
        "clocks_throttle_reasons",
        "ecc_errors",
        "retired_pages",
        "accounted_processes",
    }
)

# Every document of a `-l` stream starts with an XML declaration; inside a document "<?xml" can only
# appear escaped, so the declaration is a safe place to cut the stream.
_DECLARATION = re.compile(rb"<\?xml\s")
_DECLARATION_TAIL = 5  # bytes kept back between chunks so that a split declaration is still found
_BLANK = b" \t\r\n\xef\xbb\xbf"


class _Document:
    """One document being parsed: an expat parser with refusing handlers that builds a Node tree."""

    def __init__(self, label: str, offset: int) -> None:
        self.label = label
        self.offset = offset
        self.size = 0
        self.blank = True
        self.root: Node | None = None
        self.complete = False
        self.error: str | None = None
        self._stack: list[tuple[Node, list[str], list[int]]] = []
        self._depth = 0
        self._skip = 0
        self._elements = 0
        p = expat.ParserCreate()
        p.buffer_text = True
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.EntityDeclHandler = self._refuse_entities
        p.UnparsedEntityDeclHandler = self._refuse_entities
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._chars
        self._parser: expat.XMLParserType | None = p

    # -- expat handlers ----------------------------------------------------------------------
    def _refuse_entities(self, *_args: object) -> None:
        raise SourceError(f"{self.label}: XML declares entities; refusing to expand them")

    def _count(self) -> None:
        self._depth += 1
        self._elements += 1
        if self._depth > MAX_DEPTH:
            raise SourceError(f"{self.label}: XML nested deeper than {MAX_DEPTH} levels; not an nvidia-smi log")
        if self._elements > MAX_ELEMENTS:
            raise SourceError(f"{self.label}: XML document has over {MAX_ELEMENTS} elements; not an nvidia-smi log")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        self._count()
        if self._depth == 1:
            if name != ROOT_TAG:
                raise SourceError(
                    f"{self.label}: not an nvidia-smi log (XML root element <{name[:40]}>, expected <{ROOT_TAG}>)"
                )
            self.root = Node(name, attrs)
            self._stack.append((self.root, [], [0]))
            return
        if name in SKIPPED_TAGS:
            self._set_skipping(True)
            self._skip = 1
            return
        node = Node(name, attrs)
        self._stack[-1][0].children.append(node)
        self._stack.append((node, [], [0]))

    def _end(self, _name: str) -> None:
        self._depth -= 1
        node, parts, _ = self._stack.pop()
        node.text = "".join(parts).strip() or None
        if not self._stack:
            self.complete = True

    def _chars(self, data: str) -> None:
        if not self._stack:
            return
        _, parts, length = self._stack[-1]
        if length[0] < MAX_TEXT_CHARS:
            parts.append(data[: MAX_TEXT_CHARS - length[0]])
            length[0] += len(data)

    # Inside a skipped subtree only depth and size are counted, by cheaper handlers and no text handler.
    def _set_skipping(self, skipping: bool) -> None:
        p = self._parser
        assert p is not None
        p.StartElementHandler = self._skip_start if skipping else self._start
        p.EndElementHandler = self._skip_end if skipping else self._end
        p.CharacterDataHandler = None if skipping else self._chars

    def _skip_start(self, _name: str, _attrs: dict[str, str]) -> None:
        self._count()
        self._skip += 1

    def _skip_end(self, _name: str) -> None:
        self._depth -= 1
        self._skip -= 1
        if not self._skip:
            self._set_skipping(False)

    # -- feeding -----------------------------------------------------------------------------
    def close(self) -> None:
        """Drop the parser: its handlers point back at this object, a cycle that would outlive the load."""
        self._parser = None
        self._stack = []

    def feed(self, data: bytes, final: bool = False) -> None:
        if self.error is not None or self._parser is None:
            return
        self.size += len(data)
        if self.size > MAX_DOCUMENT_BYTES:
            raise SourceError(
                f"{self.label}: XML document at byte {self.offset} is larger than "
                f"{MAX_DOCUMENT_BYTES >> 20} MiB; not an nvidia-smi log"
            )
        if self.blank and data.strip(_BLANK):
            self.blank = False
        if self.blank and not final:
            return  # leading blanks/BOM are fed with the rest, or dropped if nothing follows
        try:
            self._parser.Parse(data, final)
        except expat.ExpatError as e:
            where = self.offset + max(self._parser.ErrorByteIndex, 0)
            self.error = f"{expat.errors.messages[e.code]} at byte {where}"


def iter_xml_documents(path: str | os.PathLike[str], label: str, warnings: list[str]) -> Iterator[Node]:
    """Yield the tree of each complete document in file order; damaged ones become warnings."""
    yielded = 0
    last_problem: str | None = None
    with open_bytes(os.fspath(path), label) as f:
        doc = _Document(label, 0)
        buf = b""
        base = 0  # file offset of buf[0]
        eof = False
        while not eof:
            chunk = f.read(CHUNK_BYTES)
            eof = not chunk
            buf += chunk
            pos = 0  # bytes of buf already fed; an index rather than re-slicing keeps many small documents linear
            while True:
                m = _DECLARATION.search(buf, pos)
                if m is not None:
                    cut = m.start()
                    if not (doc.blank and not buf[pos:cut].strip(_BLANK)):
                        doc.feed(buf[pos:cut], final=True)
                        root = _finish(doc, warnings, last=False)
                        last_problem = doc.error or last_problem
                        if root is not None:
                            yielded += 1
                            yield root
                    # a new document starts at the declaration (blanks before it are dropped)
                    doc = _Document(label, base + cut)
                    doc.feed(buf[cut : cut + _DECLARATION_TAIL])
                    pos = cut + _DECLARATION_TAIL
                    continue
                if eof:
                    doc.feed(buf[pos:], final=True)
                    root = _finish(doc, warnings, last=True)
                    last_problem = f"{doc.error}; log truncated?" if doc.error else last_problem
                    if root is not None:
                        yielded += 1
                        yield root
                    break
                keep = max(pos, len(buf) - _DECLARATION_TAIL)
                doc.feed(buf[pos:keep])
                base += keep
                buf = buf[keep:]
                break
    if yielded == 0:
        raise SourceError(f"{label}: no complete nvidia-smi XML document ({last_problem or 'none found'})")


def _finish(doc: _Document, warnings: list[str], last: bool) -> Node | None:
    doc.close()
    if doc.blank:
        return None
    if doc.complete and doc.root is not None:
        if doc.error is not None:
            warnings.append(f"{doc.label}: data after the document at byte {doc.offset} ignored ({doc.error})")
        return doc.root
    doc.error = doc.error or "cut off"
    if last:
        warnings.append(f"{doc.label}: incomplete last XML document dropped ({doc.error}; log truncated?)")
    else:
        warnings.append(f"{doc.label}: damaged XML document skipped ({doc.error})")
    return None


def parse_xml_document(data: bytes, label: str) -> Node:
    """The tree of one whole `nvidia-smi -q -x` document received in memory (from a pipe, another machine), under
    the same refusals and bounds as a file; SourceError naming ``label`` when it is not one complete document."""
    doc = _Document(label, 0)
    try:
        doc.feed(data, final=True)
    finally:
        doc.close()
    if doc.complete and doc.root is not None and doc.error is None:
        return doc.root
    raise SourceError(f"{label}: not a complete nvidia-smi XML document ({doc.error or 'cut off'})")
