"""The one sanitiser for strings from data (files, jobs, other users, workload managers) before any output.

Control characters (C0, DEL, C1: escape sequences, carriage returns, bells) and the Unicode controls that
reorder or hide text (bidi overrides and isolates, zero-width joiners aside) could rewrite a terminal or make
text read as something else; each becomes U+FFFD, so the damage stays visible. Markup is not a concern
here: sanitised strings are still rendered as plain ``Text``, never parsed as Rich markup.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def sanitise(value: str) -> str:
    """``value`` with every control and direction-changing character replaced by U+FFFD (one line of text)."""
    return _UNSAFE.sub(REPLACEMENT, value)
